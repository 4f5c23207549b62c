// reports/replay_file: the round trip, and one clear line for every way a file can be wrong.
#include "reports/replay_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace fencesim::reports {
namespace {

using nlohmann::json;

ReplayFile sample() {
  ReplayFile file;
  file.fencesim_version = std::string(fencesim_version());
  file.scenario = "nightly-mix";
  file.seed = 18446744073709551615u;
  file.strategy = "pct";
  file.sink_double = "accept-stale";
  sim::Fault stall{};
  stall.kind = sim::FaultKind::kStall;
  stall.node = "instance-1";
  stall.trigger = sim::Trigger{runtime::EventKind::kStoreCheckpointRefused, 3, 250};
  stall.duration_ns = 46'000'000'000;
  sim::Fault partition{};
  partition.kind = sim::FaultKind::kPartition;
  partition.node = "instance-2";
  partition.peer = "lease-store";
  partition.at_ns = 12'345;
  partition.duration_ns = 1;
  sim::Fault drop{};
  drop.kind = sim::FaultKind::kNetworkDrop;
  drop.node = "ledger";
  drop.probability = 0.1 + 0.2;  // not exactly representable in decimal: must survive
  sim::Fault step{};
  step.kind = sim::FaultKind::kClockStep;
  step.node = "instance-3";
  step.amount = -7'000'000'000;
  file.plan.faults = {stall, partition, drop, step};
  file.expected_status = "violation";
  file.expected_history_hash = "00000000000000ff";
  file.violations = {{"sink-monotonicity", "sink 'payments' accepted token 1 after token 2"}};
  return file;
}

std::string error_of(const json& document) {
  try {
    replay_file_from_json(document, "f.json");
  } catch (const ReplayFileError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(ReplayFile, RoundTripsThroughJsonExactly) {
  const ReplayFile file = sample();
  const json document = json::parse(to_json(file).dump());
  EXPECT_EQ(replay_file_from_json(document, "f.json"), file);
}

TEST(ReplayFile, RoundTripsThroughADisk) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("fencesim-replay-file-test-" + std::to_string(getpid()) + ".json");
  write_replay_file(path.string(), sample());
  EXPECT_EQ(read_replay_file(path.string()), sample());
  std::filesystem::remove(path);
}

TEST(ReplayFile, EventNamesInvertToString) {
  constexpr auto kLast = static_cast<int>(runtime::kLastEventKind);
  for (int value = 0; value <= kLast; ++value) {
    const auto kind = static_cast<runtime::EventKind>(value);
    EXPECT_EQ(event_kind_from_string(runtime::to_string(kind)), kind) << value;
  }
  EXPECT_EQ(event_kind_from_string("no-such-event"), std::nullopt);
}

TEST(ReplayFile, NamesTheMissingOrIllTypedField) {
  json document = json::parse(to_json(sample()).dump());
  json missing = document;
  missing.erase("scenario");
  EXPECT_EQ(error_of(missing), "replay file 'f.json': field 'scenario' is missing");
  json ill_typed = document;
  ill_typed["fault_plan"][1]["at_ns"] = "soon";
  EXPECT_EQ(error_of(ill_typed),
            "replay file 'f.json': field 'fault_plan[1].at_ns' must be a 64-bit integer");
  json no_event = document;
  no_event["fault_plan"][0]["trigger"].erase("event");
  EXPECT_EQ(error_of(no_event),
            "replay file 'f.json': field 'fault_plan[0].trigger.event' is missing");
  json plan_object = document;
  plan_object["fault_plan"] = json::object();
  EXPECT_EQ(error_of(plan_object), "replay file 'f.json': field 'fault_plan' must be an array");
  json hash = document;
  hash["expected_history_hash"] = "xyz";
  EXPECT_EQ(error_of(hash),
            "replay file 'f.json': field 'expected_history_hash' must be 16 hex digits");
}

TEST(ReplayFile, RejectsUnknownNames) {
  json document = json::parse(to_json(sample()).dump());
  json kind = document;
  kind["fault_plan"][0]["kind"] = "meteor";
  EXPECT_EQ(error_of(kind),
            "replay file 'f.json': field 'fault_plan[0].kind': unknown fault kind 'meteor'");
  json event = document;
  event["fault_plan"][0]["trigger"]["event"] = "lease-stolen";
  EXPECT_EQ(error_of(event),
            "replay file 'f.json': field 'fault_plan[0].trigger.event': unknown "
            "event 'lease-stolen'");
  json strategy = document;
  strategy["strategy"] = "dfs";
  EXPECT_EQ(error_of(strategy),
            "replay file 'f.json': field 'strategy': unknown strategy 'dfs' "
            "(expected random or pct)");
}

TEST(ReplayFile, RejectsSeedsOutOfRange) {
  json document = json::parse(to_json(sample()).dump());
  for (const char* seed : {"-1", "18446744073709551616", "1e30"}) {
    document["seed"] = json::parse(seed);
    EXPECT_EQ(error_of(document),
              "replay file 'f.json': field 'seed' is out of range (0..18446744073709551615)")
        << seed;
  }
  document["seed"] = 1.5;
  EXPECT_EQ(error_of(document),
            "replay file 'f.json': field 'seed' must be an unsigned 64-bit integer");
}

TEST(ReplayFile, RejectsOtherFormatsAndVersions) {
  json document = json::parse(to_json(sample()).dump());
  json format = document;
  format["format"] = "something-else";
  EXPECT_EQ(error_of(format),
            "replay file 'f.json': not a fencesim replay file (field 'format' "
            "must be 'fencesim-replay')");
  json version = document;
  version["version"] = 7;
  EXPECT_EQ(error_of(version),
            "replay file 'f.json' has format version 7; this fencesim reads version 1");
  json binary = document;
  binary["fencesim_version"] = "9.9.9";
  EXPECT_TRUE(error_of(binary).starts_with(
      "replay file 'f.json' was written by fencesim 9.9.9; this is fencesim "));
  EXPECT_EQ(error_of(json::array()), "replay file 'f.json': not a JSON object");
}

TEST(ReplayFile, ReportsMissingAndNonJsonFiles) {
  EXPECT_THROW(read_replay_file("/nonexistent/replay.json"), ReplayFileError);
  const auto path = std::filesystem::temp_directory_path() /
                    ("fencesim-not-json-test-" + std::to_string(getpid()) + ".json");
  std::ofstream(path) << "not json";
  try {
    read_replay_file(path.string());
    ADD_FAILURE() << "no error";
  } catch (const ReplayFileError& error) {
    EXPECT_EQ(std::string(error.what()), "replay file '" + path.string() + "' is not JSON");
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace fencesim::reports
