// reports/replay_file: the round trip, and one clear line for every way a file can be wrong.
#include "reports/replay_file.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace fencesim::reports::replay_file_test {
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
  // Every optional field filled, so that the round trip below sees each one read back (red team
  // 37c-14 wrote the signature and never read it).
  file.signature = "violation: sink-monotonicity: sink write accepted(sink)";
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

// Aimed faults keep every field of their aim: one aimed in flight at a drawn share of the way
// (not the default half), one aimed at the holder's expiry and held until the store's (red team
// 33c: the share written only for a fault held until in-flight, which no fault is, read back as
// 500 per mille, and the replay injected the fault at another moment than the run it names).
TEST(ReplayFile, AimedFaultsRoundTripEveryFieldOfTheirAim) {
  ReplayFile file = sample();
  sim::Fault in_flight{};
  in_flight.kind = sim::FaultKind::kStop;
  in_flight.node = "instance-2";
  in_flight.trigger = sim::Trigger{runtime::EventKind::kWriteSent, 2, 0};
  in_flight.trigger->aim = sim::Aim::kInFlight;
  in_flight.trigger->within_permille = 137;
  in_flight.duration_ns = 3'000'000'000;
  sim::Fault until{};
  until.kind = sim::FaultKind::kStall;
  until.node = "instance-1";
  until.trigger = sim::Trigger{runtime::EventKind::kRenewSent, 1, 0};
  until.trigger->aim = sim::Aim::kHolderExpiry;
  until.trigger->until = sim::Aim::kStoreExpiry;
  until.trigger->until_delay_ns = -250'000'000;
  file.plan.faults.push_back(in_flight);
  file.plan.faults.push_back(until);
  const ReplayFile read = replay_file_from_json(json::parse(to_json(file).dump()), "f.json");
  ASSERT_EQ(read.plan.faults.size(), file.plan.faults.size());
  EXPECT_EQ(read.plan.faults[4].trigger, in_flight.trigger);
  EXPECT_EQ(read.plan.faults[5].trigger, until.trigger);
  EXPECT_EQ(read, file);
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
  version["version"] = 5;
  EXPECT_EQ(error_of(version), "replay file 'f.json' has format version 5; this fencesim (" +
                                   std::string(fencesim_version()) +
                                   ") reads versions 1 to 4 (a newer fencesim wrote it)");
  version["version"] = 0;
  EXPECT_EQ(error_of(version), "replay file 'f.json' has format version 0; this fencesim (" +
                                   std::string(fencesim_version()) + ") reads versions 1 to 4");
  EXPECT_EQ(error_of(json::array()), "replay file 'f.json': not a JSON object");
}

// A file outlives the fencesim that wrote it: another version's file reads, and says who wrote it.
TEST(ReplayFile, AnotherFencesimVersionsFileReads) {
  json document = json::parse(to_json(sample()).dump());
  document["fencesim_version"] = "9.9.9";
  const ReplayFile file = replay_file_from_json(document, "f.json");
  EXPECT_EQ(file.fencesim_version, "9.9.9");
  EXPECT_EQ(file.scenario, sample().scenario);
}

// Schema 1 (before the history record) is migrated: it reads as schema 2 without a history, and
// says what it was migrated from. A schema-1 file never has a history record to read.
TEST(ReplayFile, SchemaOneIsMigrated) {
  ReplayFile with_history = sample();
  with_history.history =
      HistoryRecord{2, "00ffab12", std::vector<std::uint64_t>(sample().plan.faults.size(), 1)};
  json document = json::parse(to_json(with_history).dump());
  EXPECT_EQ(replay_file_from_json(document, "f.json"), with_history);
  document["version"] = 1;
  const ReplayFile migrated = replay_file_from_json(document, "f.json");
  EXPECT_EQ(migrated.migrated_from, 1);
  EXPECT_EQ(migrated.version, kReplayVersion);
  EXPECT_FALSE(migrated.history.has_value());
  ReplayFile expected = sample();
  expected.migrated_from = 1;
  expected.history_hash_scheme = sim::HistoryHashScheme::kNameBytes;  // as every file then
  EXPECT_EQ(migrated, expected);
}

// Schema 3 adds a sweep branch's branch point; schema 2 had none, so a `branch` in a file that says
// 2 is not read (nothing to migrate), and a broken one is refused naming the field.
TEST(ReplayFile, ABranchPointReadsBackFromSchemaThree) {
  ReplayFile branch = sample();
  branch.branch = properties::BranchPoint{"fenced-after-local-expiry", 5123, 3};
  json document = json::parse(to_json(branch).dump());
  EXPECT_EQ(document["version"], kReplayVersion);
  EXPECT_EQ(replay_file_from_json(document, "f.json"), branch);
  EXPECT_EQ(run_request(replay_file_from_json(document, "f.json")).branch, branch.branch);
  json older = document;
  older["version"] = 2;
  EXPECT_FALSE(replay_file_from_json(older, "f.json").branch.has_value());
  json zero = document;
  zero["branch"]["number"] = 0;
  EXPECT_EQ(error_of(zero), "replay file 'f.json': field 'branch.number' must be at least 1");
  json negative = document;
  negative["branch"]["event"] = -1;
  EXPECT_EQ(error_of(negative),
            "replay file 'f.json': field 'branch.event' must be an unsigned integer");
  EXPECT_FALSE(to_json(sample()).contains("branch"));
}

// Schema 4 names how its history hash wrote names (sim::HistoryHashScheme), and a replay runs with
// that scheme: a file of schema 1 to 3 was hashed by the names' bytes, so it reads as scheme 1
// whatever this fencesim's own runs use; a schema-4 file must say which, as 1 or 2.
TEST(ReplayFile, SchemaFourNamesItsHashScheme) {
  const json document = json::parse(to_json(sample()).dump());
  EXPECT_EQ(document["history_hash_scheme"], 2);
  EXPECT_EQ(replay_file_from_json(document, "f.json").history_hash_scheme,
            sim::HistoryHashScheme::kNameHashes);
  json bytes = document;
  bytes["history_hash_scheme"] = 1;
  EXPECT_EQ(replay_file_from_json(bytes, "f.json").history_hash_scheme,
            sim::HistoryHashScheme::kNameBytes);
  EXPECT_EQ(run_request(replay_file_from_json(bytes, "f.json")).history_hash_scheme,
            sim::HistoryHashScheme::kNameBytes);
  EXPECT_EQ(run_request(replay_file_from_json(document, "f.json")).history_hash_scheme,
            sim::HistoryHashScheme::kNameHashes);
  for (const int older : {1, 2, 3}) {
    json migrated = document;
    migrated["version"] = older;
    migrated.erase("history_hash_scheme");
    EXPECT_EQ(replay_file_from_json(migrated, "f.json").history_hash_scheme,
              sim::HistoryHashScheme::kNameBytes)
        << "schema " << older;
    migrated["history_hash_scheme"] = 2;  // not a field of that schema: not read
    EXPECT_EQ(replay_file_from_json(migrated, "f.json").history_hash_scheme,
              sim::HistoryHashScheme::kNameBytes)
        << "schema " << older;
  }
  json missing = document;
  missing.erase("history_hash_scheme");
  EXPECT_EQ(error_of(missing), "replay file 'f.json': field 'history_hash_scheme' is missing");
  for (const json& wrong : {json(3), json(0), json("2"), json(2.5)}) {
    json bad = document;
    bad["history_hash_scheme"] = wrong;
    EXPECT_EQ(error_of(bad),
              "replay file 'f.json': field 'history_hash_scheme' must be 1 (names' bytes) or 2 "
              "(names' hashes), not " +
                  wrong.dump());
  }
}

TEST(ReplayFile, RejectsABrokenHistoryRecord) {
  ReplayFile file = sample();
  file.history = HistoryRecord{2, "00ffab12", std::vector<std::uint64_t>(file.plan.faults.size())};
  const json document = json::parse(to_json(file).dump());
  json short_digest = document;
  short_digest["history"]["digest"] = "00ffab1";
  EXPECT_EQ(
      error_of(short_digest),
      "replay file 'f.json': field 'history.digest' must be 4 hex digits an event (2 events)");
  json counts = document;
  counts["history"]["faults_fired"] = "1";
  EXPECT_EQ(error_of(counts),
            "replay file 'f.json': field 'history.faults_fired' must be an array");
}

// A plan edited by hand (a fault added) no longer matches its history record's fault counts: the
// record describes another plan, so it is dropped and the file reads without one.
TEST(ReplayFile, AHistoryRecordOfAnotherPlanIsDropped) {
  ReplayFile file = sample();
  file.history = HistoryRecord{2, "00ffab12", std::vector<std::uint64_t>(file.plan.faults.size())};
  json document = json::parse(to_json(file).dump());
  document["history"]["faults_fired"].push_back(std::uint64_t{1});
  const ReplayFile read = replay_file_from_json(document, "f.json");
  EXPECT_FALSE(read.history.has_value());
  EXPECT_EQ(read.plan, file.plan);
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
}  // namespace fencesim::reports::replay_file_test
