// The fencesim binary, end to end: exit codes, the one-line errors, the replay line first, replay
// files, and determinism. Each test runs the binary in its own temporary directory.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "tests/paths.h"

// A namespace of its own: the unity build compiles this file with others of cli/tests.
namespace fencesim::cli::cli_test {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Result {
  int code = -1;
  std::string out;
  std::string err;
  std::string first_out_line() const { return out.substr(0, out.find('\n')); }
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("fencesim-cli-" + std::to_string(getpid()) + "-" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs `fencesim ARGS` in the test's directory.
  Result fencesim(const std::string& args) const {
    const std::string command = "cd '" + dir_.string() + "' && '" +
                                fencesim::testing::fencesim_binary() + "' " + args +
                                " >out.txt 2>err.txt";
    const int status = std::system(command.c_str());
    Result result;
    result.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.out = read_text(dir_ / "out.txt");
    result.err = read_text(dir_ / "err.txt");
    return result;
  }

  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
  }

  // A replay file for the broken-sink run of kleppmann-fencing seed 1.
  json broken_sink_replay() const {
    const Result run = fencesim(
        "run --scenario kleppmann-fencing --seed 1 --sink-double accept-stale --replay-out r.json");
    EXPECT_EQ(run.code, 1) << run.err;
    return json::parse(read_text(dir_ / "r.json"));
  }

  fs::path dir_;
};

// One line on stderr, nothing on stdout, exit 2.
void expect_usage_error(const Result& result, const std::string& line) {
  EXPECT_EQ(result.code, 2);
  EXPECT_EQ(result.err, line + "\n");
  EXPECT_EQ(result.out, "");
}

TEST_F(CliTest, UnknownScenarioIsAUsageError) {
  expect_usage_error(fencesim("run --scenario x --seed 1"),
                     "fencesim: unknown scenario 'x' (try 'fencesim list')");
  expect_usage_error(fencesim("check-determinism --scenario x --seeds 1..2"),
                     "fencesim: unknown scenario 'x' (try 'fencesim list')");
}

TEST_F(CliTest, MalformedSeedIsAUsageError) {
  expect_usage_error(fencesim("run --scenario kleppmann-fencing --seed abc"),
                     "fencesim: --seed: 'abc' is not an unsigned 64-bit integer");
  expect_usage_error(fencesim("run --scenario kleppmann-fencing --seed 12x"),
                     "fencesim: --seed: '12x' is not an unsigned 64-bit integer");
}

// The hidden real-worker's list of faults its earlier incarnations played: a bad entry is refused
// before the worker starts (it was read by atoi as fault 0, a fault then never played).
TEST_F(CliTest, ARealWorkersFiredListWithABadEntryIsAUsageError) {
  const std::string worker =
      "real-worker --folder . --scenario kleppmann-fencing --seed 1 --node instance-1 "
      "--clock-start 0 --time-scale 0.01 --control-fd 3 --fired ";
  expect_usage_error(fencesim(worker + "1,x"), "fencesim: --fired: 'x' is not a fault index");
  expect_usage_error(fencesim(worker + "-1"), "fencesim: --fired: '-1' is not a fault index");
  expect_usage_error(fencesim(worker + "2,,3"), "fencesim: --fired: '' is not a fault index");
  expect_usage_error(fencesim(worker + "3x"), "fencesim: --fired: '3x' is not a fault index");
}

TEST_F(CliTest, SeedOutOfRangeIsAUsageError) {
  expect_usage_error(
      fencesim("run --scenario kleppmann-fencing --seed 18446744073709551616"),
      "fencesim: --seed: '18446744073709551616' is out of range (0..18446744073709551615)");
}

TEST_F(CliTest, UnknownStrategyIsAUsageError) {
  expect_usage_error(
      fencesim("run --scenario kleppmann-fencing --seed 1 --strategy dfs"),
      "fencesim: --strategy: unknown strategy 'dfs' (expected random, pct, pct-dN or drawn)");
}

TEST_F(CliTest, UnknownSinkDoubleIsAUsageError) {
  expect_usage_error(fencesim("run --scenario kleppmann-fencing --seed 1 --sink-double nope"),
                     "fencesim: unknown sink double 'nope' (known: accept-stale, non-atomic)");
}

TEST_F(CliTest, BadSeedsRangeIsAUsageError) {
  expect_usage_error(fencesim("check-determinism --scenario kleppmann-fencing --seeds 5..1"),
                     "fencesim: --seeds: expected A..B with A <= B, got '5..1'");
  expect_usage_error(fencesim("check-determinism --scenario kleppmann-fencing --seeds 1-5"),
                     "fencesim: --seeds: expected A..B with A <= B, got '1-5'");
  expect_usage_error(fencesim("check-determinism --scenario kleppmann-fencing --seeds 1.."),
                     "fencesim: --seeds: expected A..B with A <= B, got '1..'");
}

TEST_F(CliTest, CommandLineParseErrorsExitTwoWithOneLine) {
  for (const char* args : {"", "run --seed 1", "run --scenario kleppmann-fencing --seed 1 --bogus",
                           "frobnicate", "replay"}) {
    const Result result = fencesim(args);
    EXPECT_EQ(result.code, 2) << args;
    EXPECT_TRUE(result.err.starts_with("fencesim: ")) << args << ": " << result.err;
    EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << args << ": " << result.err;
  }
  expect_usage_error(fencesim("frobnicate"),
                     "fencesim: unknown command 'frobnicate' (expected list, run, replay, "
                     "check-determinism, sweep, merge, shrink, corpus, real, explore, bench or "
                     "check-spec; try "
                     "'fencesim --help')");
}

// The bench prints every figure of issue 13 with its goal; no figure is asserted (no timed tests).
TEST_F(CliTest, BenchPrintsTheSpeedFiguresAndRefusesBadInput) {
  const Result bench = fencesim("bench --scenario kleppmann-fencing --seeds 1..2 --switches 2000");
  ASSERT_EQ(bench.code, 0) << bench.err;
  for (const char* figure : {"raw Boost.Fiber switch", "PCT", "virtual/wall", "history events/s",
                             "a raw fiber switch", "kleppmann-fencing random: 2 runs (0 failed)",
                             "kleppmann-fencing pct: 2 runs (0 failed)"}) {
    EXPECT_NE(bench.out.find(figure), std::string::npos) << figure << "\n" << bench.out;
  }
  expect_usage_error(fencesim("bench --scenario nope"),
                     "fencesim: --scenario: unknown scenario 'nope' (try 'fencesim list')");
  expect_usage_error(fencesim("bench --switches 10"), "fencesim: --switches: at least 1000");
  EXPECT_EQ(fencesim("bench --seeds 3..1").code, 2);
}

// The bench's figures divide its counts, and the counts are each strategy's own runs: the line of
// a strategy sums the history events `fencesim run --json` reports for its seeds under it.
TEST_F(CliTest, BenchCountsEachStrategysOwnRuns) {
  const Result bench = fencesim("bench --scenario kleppmann-fencing --seeds 1..2 --switches 2000");
  ASSERT_EQ(bench.code, 0) << bench.err;
  std::map<std::string, std::uint64_t> events;
  for (const std::string strategy : {"random", "pct"}) {
    for (const std::string seed : {"1", "2"}) {
      const Result run = fencesim("run --json --scenario kleppmann-fencing --seed " + seed +
                                  " --strategy " + strategy);
      ASSERT_EQ(run.code, 0) << run.err;
      events[strategy] += json::parse(run.out)["events"].get<std::uint64_t>();
    }
    const std::string line = "kleppmann-fencing " + strategy + ": 2 runs (0 failed), " +
                             std::to_string(events[strategy]) + " history events, ";
    EXPECT_NE(bench.out.find(line), std::string::npos) << line << "\n" << bench.out;
  }
  // The two strategies' runs differ: a line that counted the other strategy's runs is told.
  EXPECT_NE(events["random"], events["pct"]);
}

// Each switch figure is the mean of its own kind's measures before and after the runs, and each
// ratio divides it by the raw switch's mean: arithmetic on the printed numbers, no timing asserted
// (the printed figures are rounded to 0.1 ns and 0.01x, hence the tolerances).
TEST_F(CliTest, BenchSwitchFiguresAreTheMeansOfTheirOwnMeasures) {
  const Result bench = fencesim("bench --scenario kleppmann-fencing --seeds 1..1 --switches 2000");
  ASSERT_EQ(bench.code, 0) << bench.err;
  const std::regex raw_line(R"(raw Boost\.Fiber switch [^:]*: ([0-9.]+) ns \(before the runs )"
                            R"(([0-9.]+), after ([0-9.]+)\))");
  const std::regex sim_line(R"(simulator switch: random walk ([0-9.]+) ns \(before the runs )"
                            R"(([0-9.]+), after ([0-9.]+)\) = ([0-9.]+)x round_robin; PCT )"
                            R"(([0-9.]+) ns \(before the runs ([0-9.]+), after ([0-9.]+)\) = )"
                            R"(([0-9.]+)x round_robin)");
  std::smatch raw;
  std::smatch sim;
  ASSERT_TRUE(std::regex_search(bench.out, raw, raw_line)) << bench.out;
  ASSERT_TRUE(std::regex_search(bench.out, sim, sim_line)) << bench.out;
  const auto number = [](const std::ssub_match& m) { return std::stod(m.str()); };
  const double raw_mean = number(raw[1]);
  EXPECT_NEAR(raw_mean, (number(raw[2]) + number(raw[3])) / 2, 0.11) << raw.str();
  for (const std::size_t at : {1U, 5U}) {  // random walk, then PCT
    const double mean = number(sim[at]);
    EXPECT_NEAR(mean, (number(sim[at + 1]) + number(sim[at + 2])) / 2, 0.11) << sim.str();
    // The ratio of two figures each rounded to 0.05 ns, itself rounded to 0.005.
    const double ratio_rounding = 0.005 + 0.05 * (1 + mean / raw_mean) / raw_mean + 1e-9;
    EXPECT_NEAR(number(sim[at + 3]), mean / raw_mean, ratio_rounding) << sim.str();
  }
}

// A run that fails for liveness is a failed run in the bench's count as much as one with a
// violation: planted-lost-wakeup's tree stops on every seed (a liveness failure, no violation).
TEST_F(CliTest, BenchCountsALivenessFailureAsFailed) {
  ::setenv("FENCESIM_TEST_PLANTED_BUGS", "1", 1);
  const Result bench = fencesim("bench --scenario planted-lost-wakeup --seeds 1..2 --switches 2000");
  ::unsetenv("FENCESIM_TEST_PLANTED_BUGS");
  ASSERT_EQ(bench.code, 0) << bench.err;
  for (const char* line : {"planted-lost-wakeup random: 2 runs (2 failed)",
                           "planted-lost-wakeup pct: 2 runs (2 failed)"}) {
    EXPECT_NE(bench.out.find(line), std::string::npos) << line << "\n" << bench.out;
  }
}

TEST_F(CliTest, HelpAndVersionExitZero) {
  EXPECT_EQ(fencesim("--help").code, 0);
  EXPECT_EQ(fencesim("run --help").code, 0);
  const Result version = fencesim("--version");
  EXPECT_EQ(version.code, 0);
  EXPECT_TRUE(version.out.starts_with("fencesim ")) << version.out;
}

TEST_F(CliTest, MissingReplayFileIsAnInputError) {
  expect_usage_error(fencesim("replay nope.json"), "fencesim: replay file 'nope.json' not found");
}

TEST_F(CliTest, CorruptReplayFileIsAnInputError) {
  write("corrupt.json", "{\"format\": \"fencesim-replay\", ");
  expect_usage_error(fencesim("replay corrupt.json"),
                     "fencesim: replay file 'corrupt.json' is not JSON");
}

TEST_F(CliTest, NewerSchemaReplayFileIsAnInputError) {
  json file = broken_sink_replay();
  file["version"] = 5;
  write("v5.json", file.dump());
  const Result newer = fencesim("replay v5.json");
  EXPECT_EQ(newer.code, 2);
  EXPECT_TRUE(newer.err.starts_with("fencesim: replay file 'v5.json' has format version 5; "))
      << newer.err;
  EXPECT_TRUE(newer.err.ends_with("reads versions 1 to 4 (a newer fencesim wrote it)\n"))
      << newer.err;
}

// A file from another fencesim version, in the older schema 1, loads and replays. Its hash was made
// by the names' bytes (every file before schema 4): the run's hash under that scheme is what such
// a file recorded, read from the replay of the same file told to use it.
TEST_F(CliTest, OlderVersionsReplayFileReplays) {
  json file = broken_sink_replay();
  file["history_hash_scheme"] = 1;
  write("bytes.json", file.dump());
  const Result bytes = fencesim("replay --json bytes.json");
  // Exit 4, not the run's 1: the hash it recorded was made by scheme 2, so the replay by scheme 1
  // is not the recorded run (replay exits 4 then, docs/replay-files.md); the run still fails.
  ASSERT_EQ(bytes.code, 4) << bytes.out << bytes.err;
  ASSERT_EQ(json::parse(bytes.out)["status"], "violation") << bytes.out;
  file["expected_history_hash"] = json::parse(bytes.out)["history_hash"];
  file.erase("history_hash_scheme");
  file["version"] = 1;
  file.erase("history");
  file["fencesim_version"] = "0.0.0-other";
  write("other.json", file.dump());
  const Result other = fencesim("replay other.json");
  EXPECT_EQ(other.code, 1) << other.out << other.err;
  EXPECT_NE(other.out.find("replay matches other.json"), std::string::npos) << other.out;
  EXPECT_NE(other.out.find("history: same-history: same history (hash "), std::string::npos)
      << other.out;
  EXPECT_NE(other.out.find("(file written by fencesim 0.0.0-other, schema 1; this is fencesim "),
            std::string::npos)
      << other.out;
}

TEST_F(CliTest, IllTypedReplayFileNamesTheField) {
  json file = broken_sink_replay();
  file["fault_plan"][0]["kind"] = "meteor";
  write("kind.json", file.dump());
  expect_usage_error(fencesim("replay kind.json"),
                     "fencesim: replay file 'kind.json': field 'fault_plan[0].kind': unknown "
                     "fault kind 'meteor'");
  file = broken_sink_replay();
  file.erase("seed");
  write("seed.json", file.dump());
  expect_usage_error(fencesim("replay seed.json"),
                     "fencesim: replay file 'seed.json': field 'seed' is missing");
}

TEST_F(CliTest, ListShowsTheBuiltinScenarios) {
  const Result result = fencesim("list");
  EXPECT_EQ(result.code, 0);
  EXPECT_NE(result.out.find("kleppmann-fencing  "), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("\nnightly-mix  "), std::string::npos) << result.out;
}

TEST_F(CliTest, RunPrintsTheConfigurationFirstThenTheSummary) {
  const Result result = fencesim("run --scenario kleppmann-fencing --seed 1");
  EXPECT_EQ(result.code, 0) << result.err;
  EXPECT_TRUE(result.first_out_line().starts_with(
      "scenario=kleppmann-fencing seed=1 strategy=random fencesim="))
      << result.out;
  EXPECT_NE(result.out.find("\nstatus: pass\n"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("\nhistory hash: "), std::string::npos) << result.out;
}

// Scenario 13's figures (how often a stale holder's unchecked call overlapped the next holder)
// reach the run's JSON, not only the sweep's summary.
TEST_F(CliTest, RunJsonCarriesTheFiguresAWorkloadMeasured) {
  // Seed 3: at seeds 1 and 2 the stop lands in the confirm's cancel check (a store read after
  // its renewal), the confirm is refused and no unchecked call is made, so nothing is measured.
  const Result result = fencesim("run --scenario confirm-then-unchecked-call --seed 3 --json");
  ASSERT_EQ(result.code, 0) << result.err;
  const json report = json::parse(result.out);
  ASSERT_TRUE(report["figures"].is_object());
  ASSERT_TRUE(report["figures"].contains("unchecked-calls")) << report["figures"].dump();
  EXPECT_GT(report["figures"]["unchecked-calls"].get<std::int64_t>(), 0);
}

TEST_F(CliTest, RunJsonPassesWithEveryField) {
  const Result result = fencesim("run --scenario kleppmann-fencing --seed 1 --json");
  ASSERT_EQ(result.code, 0) << result.err;
  EXPECT_EQ(result.err, "");
  const json report = json::parse(result.out);
  for (const char* field :
       {"scenario", "seed", "strategy", "status", "history_hash", "events", "virtual_seconds",
        "wall_seconds", "violations", "marks", "figures", "within_assumptions", "fault_plan"}) {
    EXPECT_TRUE(report.contains(field)) << field;
  }
  EXPECT_EQ(report["status"], "pass");
  EXPECT_EQ(report["scenario"], "kleppmann-fencing");
  EXPECT_EQ(report["seed"], 1);
  EXPECT_EQ(report["strategy"], "random");
  EXPECT_EQ(report["history_hash"].get<std::string>().size(), 16u);
  EXPECT_TRUE(report["violations"].is_array());
  EXPECT_TRUE(report["marks"].is_object());
  EXPECT_TRUE(report["fault_plan"].is_array());
  EXPECT_FALSE(fs::exists(dir_ / "fencesim-replay-kleppmann-fencing-1.json"));
}

TEST_F(CliTest, SameSeedTwiceGivesTheSameHash) {
  const Result first = fencesim("run --scenario kleppmann-fencing --seed 7 --json");
  const Result second = fencesim("run --scenario kleppmann-fencing --seed 7 --json");
  ASSERT_EQ(first.code, 0) << first.err;
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_EQ(json::parse(first.out)["history_hash"], json::parse(second.out)["history_hash"]);
}

TEST_F(CliTest, BrokenSinkIsCaughtWithTheReplayLineFirst) {
  const Result run = fencesim(
      "run --scenario kleppmann-fencing --seed 1 --sink-double accept-stale --replay-out x.json");
  EXPECT_EQ(run.code, 1) << run.err;
  EXPECT_EQ(run.first_out_line(), "fencesim replay x.json");
  EXPECT_NE(run.out.find("\nstatus: violation\n"), std::string::npos) << run.out;
  ASSERT_TRUE(fs::exists(dir_ / "x.json"));
  const std::string hash = json::parse(read_text(dir_ / "x.json"))["expected_history_hash"];
  EXPECT_NE(run.out.find("history hash: " + hash), std::string::npos) << run.out;

  const Result replay = fencesim("replay x.json");
  EXPECT_EQ(replay.code, 1) << replay.err;
  EXPECT_NE(replay.out.find("history hash: " + hash), std::string::npos) << replay.out;
  EXPECT_NE(replay.out.find("replay matches x.json"), std::string::npos) << replay.out;
  EXPECT_EQ(replay.err, "");

  const Result replay_json = fencesim("replay x.json --json");
  EXPECT_EQ(replay_json.code, 1);
  const json report = json::parse(replay_json.out);
  EXPECT_EQ(report["history_hash"], hash);
  EXPECT_EQ(report["status"], "violation");
  EXPECT_EQ(report["replay"]["matches"], true);
}

TEST_F(CliTest, FailingJsonRunPutsTheReplayLineFirstOnStderr) {
  const Result run =
      fencesim("run --scenario kleppmann-fencing --seed 1 --sink-double accept-stale --json");
  EXPECT_EQ(run.code, 1);
  const std::string file = "fencesim-replay-kleppmann-fencing-1.json";
  EXPECT_EQ(run.err.substr(0, run.err.find('\n')), "fencesim replay " + file);
  EXPECT_TRUE(fs::exists(dir_ / file));
  const json report = json::parse(run.out);
  EXPECT_EQ(report["status"], "violation");
  ASSERT_FALSE(report["violations"].empty());
  EXPECT_TRUE(report["violations"][0].contains("invariant"));
  EXPECT_TRUE(report["violations"][0].contains("message"));
}

TEST_F(CliTest, ReplaySaysSoWhenTheHashDiffers) {
  json file = broken_sink_replay();
  file["expected_history_hash"] = "0123456789abcdef";
  write("edited.json", file.dump());
  const Result replay = fencesim("replay edited.json");
  EXPECT_EQ(replay.code, 4);  // not the recorded run, though it fails (docs/replay-files.md)
  EXPECT_NE(replay.out.find("replay DIFFERS from edited.json: history hash"), std::string::npos)
      << replay.out;
  EXPECT_NE(replay.err.find("but the file recorded 0123456789abcdef"), std::string::npos)
      << replay.err;
}

// The same history can be judged otherwise: an oracle added, fixed or made stricter since the
// file was written changes the status and not the hash. A replay that compared the hash alone
// would say "replay matches" of a run whose verdict is no longer the recorded one.
TEST_F(CliTest, ReplaySaysSoWhenOnlyTheStatusDiffers) {
  json file = broken_sink_replay();
  ASSERT_EQ(file["expected_status"], "violation");
  file["expected_status"] = "pass";
  write("judged-otherwise.json", file.dump());
  const Result replay = fencesim("replay judged-otherwise.json --json");
  EXPECT_EQ(replay.code, 4);  // not the recorded outcome: exit 4, not the run's own 1
  const json report = json::parse(replay.out);
  EXPECT_EQ(report["history_hash"], file["expected_history_hash"]);
  EXPECT_EQ(report["replay"]["matches"], false) << replay.out;
  EXPECT_NE(replay.err.find("replay DIFFERS from judged-otherwise.json: status violation but the "
                            "file recorded pass."),
            std::string::npos)
      << replay.err;
}

// The same history, the same status, another invariant: an oracle that now blames another rule
// (or a nondeterministic one) has not reproduced the recorded failure, whatever the status says.
TEST_F(CliTest, ReplaySaysSoWhenOnlyTheViolatedInvariantDiffers) {
  json file = broken_sink_replay();
  ASSERT_FALSE(file["violations"].empty());
  const std::string first = file["violations"][0]["invariant"];
  file["violations"][0]["invariant"] = "no-such-invariant";
  write("blamed-otherwise.json", file.dump());
  const Result replay = fencesim("replay blamed-otherwise.json --json");
  EXPECT_EQ(replay.code, 4);
  const json report = json::parse(replay.out);
  EXPECT_EQ(report["history_hash"], file["expected_history_hash"]);
  EXPECT_EQ(report["status"], file["expected_status"]);
  EXPECT_EQ(report["replay"]["matches"], false) << replay.out;
  EXPECT_NE(replay.err.find("replay DIFFERS from blamed-otherwise.json: violated " + first),
            std::string::npos)
      << replay.err;
  EXPECT_NE(replay.err.find("but the file recorded no-such-invariant"), std::string::npos)
      << replay.err;
  // Every invariant counts, in order, not the first alone: the file records one more after the
  // run's own (red team 37c-16 compared the first invariants only, and this replay matched).
  json longer = broken_sink_replay();
  json extra = longer["violations"][0];
  extra["invariant"] = "no-such-invariant";
  longer["violations"].push_back(extra);
  write("blamed-once-more.json", longer.dump());
  const Result again = fencesim("replay blamed-once-more.json --json");
  EXPECT_EQ(again.code, 4) << again.out << again.err;
  EXPECT_EQ(json::parse(again.out)["replay"]["matches"], false) << again.out;
}

TEST_F(CliTest, ReplayUsesTheFilesFaultPlan) {
  json file = broken_sink_replay();
  file["fault_plan"] = json::array();
  write("no-faults.json", file.dump());
  const Result replay = fencesim("replay no-faults.json --json");
  const json report = json::parse(replay.out);
  EXPECT_TRUE(report["fault_plan"].empty());
  EXPECT_EQ(report["replay"]["matches"], false);
}

TEST_F(CliTest, TraceWritesOneDescribedEventPerLine) {
  const Result run = fencesim("run --scenario kleppmann-fencing --seed 1 --json --trace trace.txt");
  ASSERT_EQ(run.code, 0) << run.err;
  const std::string trace = read_text(dir_ / "trace.txt");
  const auto lines = static_cast<std::uint64_t>(std::count(trace.begin(), trace.end(), '\n'));
  EXPECT_EQ(lines, json::parse(run.out)["events"].get<std::uint64_t>());
  EXPECT_TRUE(trace.starts_with("#0 ")) << trace.substr(0, 80);
}

// --trace FILE holds the one run: a file left by an earlier run is replaced, not added to (round
// 30b: a trace opened for appending passed the test above, which always wrote a fresh file).
TEST_F(CliTest, TraceReplacesAnEarlierRunsFile) {
  write("trace.txt", "#0 an earlier run's event\n");
  const Result run = fencesim("run --scenario kleppmann-fencing --seed 1 --json --trace trace.txt");
  ASSERT_EQ(run.code, 0) << run.err;
  const std::string trace = read_text(dir_ / "trace.txt");
  const auto lines = static_cast<std::uint64_t>(std::count(trace.begin(), trace.end(), '\n'));
  EXPECT_EQ(lines, json::parse(run.out)["events"].get<std::uint64_t>());
  EXPECT_EQ(trace.find("an earlier run"), std::string::npos) << trace.substr(0, 80);
}

// A trace whose writes fail after the file opened (a full disk: /dev/full opens, and every write
// to it fails) is a usage error naming the file, not a run that ends as if the trace were kept.
TEST_F(CliTest, ATraceThatCannotBeWrittenIsAnError) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  expect_usage_error(fencesim("run --scenario kleppmann-fencing --seed 1 --trace /dev/full"),
                     "fencesim: --trace: cannot write '/dev/full'");
}

// A real run is not replayable by seed: its page says how to run it again, and that command names
// the broken sink the run had, or running it again runs a correct sink and passes (round 30b:
// the command without --sink-double passed every test; no test drew a real run's page).
TEST_F(CliTest, ARealRunsPageSaysHowToRunItAgainWithItsSinkDouble) {
  const Result run = fencesim(
      "real --scenario kleppmann-fencing --seed 1 --time-scale 0.02 --sink-double accept-stale "
      "--html page.html");
  ASSERT_NE(run.code, 2) << run.err;
  const std::string page = read_text(dir_ / "page.html");
  EXPECT_NE(page.find("run again: fencesim real --scenario kleppmann-fencing --seed 1 --store "
                      "sqlite --time-scale 0.02 --sink-double accept-stale"),
            std::string::npos)
      << run.out << run.err;
}

// A sweep's report that cannot be written (here runs.jsonl, made a folder since the last sweep
// into `out`) is the user's to fix: one line naming the file, exit 2, not a harness error (round
// 30b: with reports::SweepFileError not caught by the command line, it was exit 5, "harness
// error").
TEST_F(CliTest, ASweepReportThatCannotBeWrittenIsAUsageError) {
  const std::string sweep = "sweep --scenario kleppmann-fencing --seeds 1..1 --jobs 1 --out out";
  ASSERT_EQ(fencesim(sweep).code, 0);
  fs::remove(dir_ / "out" / "runs.jsonl");
  fs::create_directories(dir_ / "out" / "runs.jsonl" / "x");
  const Result again = fencesim(sweep);
  EXPECT_EQ(again.code, 2) << again.err;
  EXPECT_TRUE(again.err.starts_with("fencesim: cannot write 'out/runs.jsonl'")) << again.err;
}

TEST_F(CliTest, CheckDeterminismPassesOnFiveSeeds) {
  const Result result = fencesim("check-determinism --scenario kleppmann-fencing --seeds 1..5");
  EXPECT_EQ(result.code, 0) << result.err;
  EXPECT_EQ(result.first_out_line(), "5 seeds deterministic");
}

TEST_F(CliTest, CheckDeterminismReportsAPlantedNondeterminism) {
  // planted-nondeterminism (scenarios/planted_bugs.cpp) gives a seed another history on its
  // second run in one process: a check that compared a run with itself would pass it.
  setenv("FENCESIM_TEST_PLANTED_BUGS", "1", 1);
  const Result result =
      fencesim("check-determinism --scenario planted-nondeterminism --seeds 1..2");
  unsetenv("FENCESIM_TEST_PLANTED_BUGS");
  EXPECT_EQ(result.code, 4) << result.out << result.err;
  EXPECT_TRUE(
      result.out.starts_with("nondeterminism: scenario planted-nondeterminism seed 1 strategy "))
      << result.out;
  EXPECT_NE(result.out.find("first diverging event: #"), std::string::npos) << result.out;
  EXPECT_NE(result.err.find("scenario planted-nondeterminism seed 1 is not deterministic"),
            std::string::npos)
      << result.err;
}

// A sweep whose determinism check finds a run that replays differently fails with the
// nondeterminism exit code, though every run passed its invariants: a night of nondeterministic
// runs is not a green night (CI reads the exit code, not the counts).
TEST_F(CliTest, SweepFindingANondeterministicRunExitsNondeterministic) {
  setenv("FENCESIM_TEST_PLANTED_BUGS", "1", 1);
  const Result result = fencesim(
      "sweep --scenario planted-nondeterminism --seeds 1..3 --jobs 1 --determinism-every 1 "
      "--out sweep-out");
  unsetenv("FENCESIM_TEST_PLANTED_BUGS");
  EXPECT_EQ(result.code, 4) << result.out << result.err;
  // How many of the three differ depends on the order the worker takes the runs and their re-runs
  // in (the planted bug alternates by the worlds its process built, and the engine sizes its
  // batches by measured time): at least one, and nothing else failed.
  bool found = false;
  for (const char* count : {"1", "2", "3"}) {
    found = found || result.out.find(std::string("0 violations or liveness, ") + count +
                                     " nondeterministic, 0 harness errors") != std::string::npos;
  }
  EXPECT_TRUE(found) << result.out;
}

// A range's last seed is checked too, and a range of one seed is that seed: a loop that stopped
// before the last seed (seed < last, the usual bound) would check nothing of "--seeds 3..3" and
// call the planted bug deterministic.
TEST_F(CliTest, CheckDeterminismChecksTheRangesLastSeed) {
  setenv("FENCESIM_TEST_PLANTED_BUGS", "1", 1);
  const Result result =
      fencesim("check-determinism --scenario planted-nondeterminism --seeds 3..3");
  unsetenv("FENCESIM_TEST_PLANTED_BUGS");
  EXPECT_EQ(result.code, 4) << result.out << result.err;
  EXPECT_NE(result.err.find("scenario planted-nondeterminism seed 3 is not deterministic"),
            std::string::npos)
      << result.out << result.err;
  const Result passing = fencesim("check-determinism --scenario kleppmann-fencing --seeds 7..7");
  EXPECT_EQ(passing.code, 0) << passing.err;
  EXPECT_NE(passing.out.find("1 seeds deterministic"), std::string::npos) << passing.out;
}

// One history judged two ways is nondeterminism too, and check-determinism says which it is: the
// histories are equal, the verdicts (status and the invariants violated) are not. The test hook
// verdict-differs-on-second-run (docs/reports.md, "Test hook") adds a violation to seed 2's second
// run; seed 1 before it passes, seed 3 after it is never run.
TEST_F(CliTest, CheckDeterminismSaysWhenOnlyTheVerdictsDiffer) {
  setenv("FENCESIM_TEST_CRASH_SEED", "2", 1);
  setenv("FENCESIM_TEST_CRASH_KIND", "verdict-differs-on-second-run", 1);
  const Result result = fencesim("check-determinism --scenario kleppmann-fencing --seeds 1..3");
  unsetenv("FENCESIM_TEST_CRASH_SEED");
  unsetenv("FENCESIM_TEST_CRASH_KIND");
  EXPECT_EQ(result.code, 4) << result.out << result.err;
  const Result run = fencesim("run --scenario kleppmann-fencing --seed 2 --json");
  ASSERT_EQ(run.code, 0) << run.out << run.err;
  const std::string hash = json::parse(run.out)["history_hash"];
  const std::string strategy = json::parse(run.out)["strategy"];
  EXPECT_EQ(result.out, "nondeterminism: scenario kleppmann-fencing seed 2 strategy " + strategy +
                            ": history hash " + hash + " then " + hash +
                            "\nthe histories are equal; the verdicts differ: pass then violation "
                            "(test-hook)\n");
  EXPECT_EQ(result.err, "fencesim: scenario kleppmann-fencing seed 2 is not deterministic\n");
}

// Seeds that fail, the same way twice, are deterministic: counted, and the line after says how
// many did not pass and how to look at one (planted-failing-step fails liveness on every seed).
TEST_F(CliTest, CheckDeterminismCountsTheSeedsThatDidNotPass) {
  setenv("FENCESIM_TEST_PLANTED_BUGS", "1", 1);
  const Result result = fencesim("check-determinism --scenario planted-failing-step --seeds 1..2");
  unsetenv("FENCESIM_TEST_PLANTED_BUGS");
  EXPECT_EQ(result.code, 0) << result.out << result.err;
  EXPECT_EQ(result.out,
            "2 seeds deterministic\nstrategies: random 2\n(2 of them did not pass: see "
            "'fencesim run --scenario planted-failing-step --seed N')\n");
}

// With --strategy drawn each seed is checked under the strategy it draws, the one `fencesim run
// --strategy drawn` runs it under (its JSON names it), and the line after the count tallies them
// by name: a check that drew once for the whole range would name one strategy for every seed.
TEST_F(CliTest, CheckDeterminismRunsEachSeedUnderTheStrategyItDraws) {
  std::map<std::string, int> drawn;
  for (int seed = 1; seed <= 12; ++seed) {
    const Result run = fencesim("run --scenario kleppmann-fencing --seed " + std::to_string(seed) +
                                " --strategy drawn --json");
    ASSERT_EQ(run.code, 0) << run.err;
    ++drawn[json::parse(run.out)["strategy"].get<std::string>()];
  }
  ASSERT_GT(drawn.size(), 1u) << "twelve seeds drew one strategy: pick other seeds";
  std::string tally;
  for (const auto& [strategy, count] : drawn) {
    tally += (tally.empty() ? "" : ", ") + strategy + " " + std::to_string(count);
  }
  const Result result =
      fencesim("check-determinism --scenario kleppmann-fencing --seeds 1..12 --strategy drawn");
  EXPECT_EQ(result.code, 0) << result.err;
  EXPECT_EQ(result.out, "12 seeds deterministic\nstrategies: " + tally + "\n");
  const Result fixed =
      fencesim("check-determinism --scenario kleppmann-fencing --seeds 1..3 --strategy pct-d2");
  EXPECT_EQ(fixed.out, "3 seeds deterministic\nstrategies: pct-d2 3\n");
}

// The count check-determinism prints is of the seeds it ran twice, not the range's size: a loop
// that skipped seeds (stepping by two, stopping one short) would still print the range's size and
// pass every seed it never ran. Six seeds, an even count, from an even first seed.
TEST_F(CliTest, CheckDeterminismCountsTheSeedsItRan) {
  const Result result = fencesim("check-determinism --scenario kleppmann-fencing --seeds 2..7");
  EXPECT_EQ(result.code, 0) << result.err;
  EXPECT_EQ(result.first_out_line(), "6 seeds deterministic");
}

TEST_F(CliTest, SweepPassesAndSummarizesEachScenario) {
  const Result result =
      fencesim("sweep --scenario kleppmann-fencing --seeds 1..10 --strategy both --out sweep-out");
  EXPECT_EQ(result.code, 0) << result.err;
  EXPECT_NE(result.out.find("kleppmann-fencing: 20 runs, 0 failures, 0 nondeterministic"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("stale-write-refused=20"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("sweep: 20 passed, 0 failed"), std::string::npos) << result.out;
}

TEST_F(CliTest, SweepRejectsABadRangeWithOneLine) {
  expect_usage_error(fencesim("sweep --seeds 5..1"),
                     "fencesim: --seeds: expected A..B with A <= B, got '5..1'");
}

TEST_F(CliTest, CheckDeterminismPassesWithPct) {
  const Result result =
      fencesim("check-determinism --scenario nightly-mix --seeds 1..2 --strategy pct");
  EXPECT_EQ(result.code, 0) << result.err;
  EXPECT_EQ(result.first_out_line(), "2 seeds deterministic");
}

}  // namespace

}  // namespace fencesim::cli::cli_test
