// `fencesim sweep` end to end: the output folder and its reports, failures shrunk and replayable,
// seeds that crash, abort, throw or hang in a worker, sharding, the budget's seed order, and every
// kind of bad input (one line, exit 2, nothing already written lost).
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <regex>
#include <set>
#include <tuple>

#include "cli/sweep_pool.h"
#include "cli/sweep_worker.h"
#include "cli/tests/sweep_fixture.h"
#include "reports/replay_file.h"
#include "scenarios/scenario.h"

namespace fencesim::cli::testing::sweep_test {
namespace {

using nlohmann::json;

class SweepTest : public BinaryTest {};

// (scenario, strategy, seed) of every run in a folder's runs.jsonl, in file order.
std::vector<std::tuple<std::string, std::string, std::uint64_t>> run_keys(const fs::path& folder) {
  std::vector<std::tuple<std::string, std::string, std::uint64_t>> keys;
  for (const json& run : runs(folder)) {
    keys.emplace_back(run["scenario"], run["strategy"], run["seed"].get<std::uint64_t>());
  }
  return keys;
}

TEST_F(SweepTest, PassingSweepWritesEveryReportSorted) {
  const Result result = fencesim(
      "sweep --scenario kleppmann-fencing --seeds 1..6 --strategy both --jobs 2 --out out");
  ASSERT_EQ(result.code, 0) << result.out << result.err;
  EXPECT_EQ(
      result.out.substr(0, result.out.find('\n')).rfind("sweep: scenarios=kleppmann-fencing", 0),
      0u)
      << result.out;
  EXPECT_NE(result.out.find("kleppmann-fencing: 12 runs, 0 failures, 0 nondeterministic"),
            std::string::npos)
      << result.out;

  const auto keys = run_keys(path("out"));
  ASSERT_EQ(keys.size(), 12u);
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
  EXPECT_EQ(std::get<1>(keys.front()), "pct");
  EXPECT_EQ(read_lines(path("out/run_times.jsonl")).size(), 12u);

  const json summary = read_json(path("out/summary.json"));
  EXPECT_EQ(summary["format"], "fencesim-sweep-summary");
  EXPECT_EQ(summary["version"], 1);
  EXPECT_EQ(summary["totals"]["runs"], 12);
  EXPECT_EQ(summary["totals"]["passed"], 12);
  EXPECT_EQ(summary["totals"]["failed"], 0);
  EXPECT_TRUE(summary["budget"].is_null());
  ASSERT_EQ(summary["scenarios"].size(), 1u);
  const json& scenario = summary["scenarios"][0];
  EXPECT_EQ(scenario["name"], "kleppmann-fencing");
  // Seed 1 of 1..6 is the one seed in ten re-run, under both strategies.
  EXPECT_EQ(scenario["determinism_reruns"], 2);
  EXPECT_EQ(scenario["marks"]["stale-write-refused"], 12);
  EXPECT_TRUE(summary["failures"].empty());

  const std::string junit = read_text(path("out/junit.xml"));
  EXPECT_NE(junit.find("<testcase classname=\"fencesim\" name=\"kleppmann-fencing\""),
            std::string::npos);
  EXPECT_EQ(junit.find("<failure"), std::string::npos);
  EXPECT_NE(read_text(path("out/report.html")).find("<html"), std::string::npos);
  const json sweep = read_json(path("out/sweep.json"));
  EXPECT_EQ(sweep["format"], "fencesim-sweep");
  EXPECT_EQ(sweep["completed"], true);
  EXPECT_EQ(sweep["configuration"]["seeds"]["last"], 6);
}

// A sweep where every seed fails: each failure keeps its replay file and its lines in the
// reports, but only the first --draw-limit of each scenario and signature are shrunk and drawn.
TEST_F(SweepTest, OnlyTheFirstFailuresOfAKindAreShrunkAndDrawn) {
  const Result result = fencesim(
      "sweep --scenario kleppmann-fencing --seeds 1..7 --strategy random --jobs 2 "
      "--sink-double accept-stale --draw-limit 3 --out out");
  ASSERT_EQ(result.code, 1) << result.out << result.err;
  const json summary = read_json(path("out/summary.json"));
  ASSERT_EQ(summary["failures"].size(), 7u);
  EXPECT_EQ(runs(path("out")).size(), 7u);
  std::map<std::string, std::uint64_t> drawn, not_drawn;
  for (const json& failure : summary["failures"]) {
    const std::string kind = "kleppmann-fencing [" + failure["group"].get<std::string>() + "]";
    EXPECT_TRUE(fs::exists(path("out") / failure["replay_file"].get<std::string>()));
    const std::string base =
        "out/failures/kleppmann-fencing-random-" + std::to_string(failure["seed"].get<int>());
    if (failure["shrunk_replay_file"].is_string()) {
      ++drawn[kind];
      for (const char* suffix :
           {".shrunk.replay.json", ".timeline.json", ".html", ".perfetto.json"})
        EXPECT_TRUE(fs::exists(path(base + suffix))) << base << suffix;
    } else {
      ++not_drawn[kind];
      EXPECT_EQ(failure["note"], "not shrunk or drawn: 3 failures of " + kind + " already were");
      EXPECT_TRUE(failure["html"].is_null());
      for (const char* suffix :
           {".shrunk.replay.json", ".timeline.json", ".html", ".perfetto.json"})
        EXPECT_FALSE(fs::exists(path(base + suffix))) << base << suffix;
    }
  }
  for (const auto& [kind, count] : drawn) {
    EXPECT_EQ(count, std::min<std::uint64_t>(3, count + not_drawn[kind])) << kind;
  }
  std::uint64_t total_drawn = 0, total_not_drawn = 0;
  for (const auto& [kind, count] : drawn) total_drawn += count;
  for (const auto& [kind, count] : not_drawn) total_not_drawn += count;
  EXPECT_EQ(total_drawn + total_not_drawn, 7u);
  EXPECT_GT(total_not_drawn, 0u);  // there are more failures of a kind than the limit
  // JUnit names every failure's replay command, drawn or not.
  const std::string junit = read_text(path("out/junit.xml"));
  for (int seed = 1; seed <= 7; ++seed) {
    EXPECT_NE(junit.find("fencesim replay failures/kleppmann-fencing-random-" +
                         std::to_string(seed) + ".replay.json"),
              std::string::npos)
        << seed;
  }
}

// --stop-after-failures: once that many runs failed, no new seed is handed out; the runs already
// held by the worker end, and the sweep says it stopped early. Every seed fails here.
TEST_F(SweepTest, AStopAfterFailuresEndsTheSweepEarly) {
  const Result result = fencesim(
      "sweep --scenario kleppmann-fencing --seeds 1..200 --strategy random --jobs 1 "
      "--sink-double accept-stale --stop-after-failures 2 --draw-limit 1 --out out");
  ASSERT_EQ(result.code, 1) << result.out << result.err;
  EXPECT_NE(result.out.find("stopped early: 2 failures (--stop-after-failures)"), std::string::npos)
      << result.out;
  const std::size_t ran = runs(path("out")).size();
  EXPECT_GE(ran, 2u);
  EXPECT_LT(ran, 100u);
  const json summary = read_json(path("out/summary.json"));
  EXPECT_EQ(summary["failures"].size(), ran);
  // Without the option the same plan runs every seed.
  const Result all = fencesim(
      "sweep --scenario kleppmann-fencing --seeds 1..200 --strategy random --jobs 1 "
      "--sink-double accept-stale --draw-limit 1 --out all");
  ASSERT_EQ(all.code, 1) << all.out << all.err;
  EXPECT_EQ(all.out.find("stopped early"), std::string::npos);
  EXPECT_EQ(runs(path("all")).size(), 200u);
}

TEST_F(SweepTest, FailuresAreShrunkDrawnAndReplayable) {
  const Result result = fencesim(
      "sweep --scenario kleppmann-fencing --seeds 1..2 --strategy random --jobs 2 "
      "--sink-double accept-stale --out out --corpus corpus");
  ASSERT_EQ(result.code, 1) << result.out << result.err;
  // Each failure's command comes first on its line, as it is found.
  EXPECT_NE(
      result.out.find("\nfencesim replay out/failures/kleppmann-fencing-random-1.replay.json\n"
                      "  kleppmann-fencing random seed 1: violation sink-monotonicity"),
      std::string::npos)
      << result.out;
  for (const char* suffix :
       {".replay.json", ".shrunk.replay.json", ".timeline.json", ".html", ".perfetto.json"}) {
    EXPECT_TRUE(fs::exists(path(std::string("out/failures/kleppmann-fencing-random-2") + suffix)))
        << suffix;
  }
  const json summary = read_json(path("out/summary.json"));
  ASSERT_EQ(summary["failures"].size(), 2u);
  const json& failure = summary["failures"][0];
  EXPECT_EQ(failure["seed"], 1);
  EXPECT_EQ(failure["invariant"], "sink-monotonicity");
  EXPECT_EQ(failure["replay_command"],
            "fencesim replay failures/kleppmann-fencing-random-1.replay.json");
  EXPECT_EQ(failure["shrunk_replay_file"],
            "failures/kleppmann-fencing-random-1.shrunk.replay.json");
  EXPECT_LE(failure["shrunk_faults"].get<int>(), failure["original_faults"].get<int>());
  // The timeline drawn is the shrunk run's, the one its replay command names: its plan is the
  // shrunk plan and its history the shrunk file's (shrinking shortens this fault: the original
  // run's history hash is another).
  for (const char* seed : {"1", "2"}) {
    const std::string base = std::string("out/failures/kleppmann-fencing-random-") + seed;
    const json timeline = read_json(path(base + ".timeline.json"));
    const json shrunk = read_json(path(base + ".shrunk.replay.json"));
    const json original = read_json(path(base + ".replay.json"));
    ASSERT_NE(shrunk["expected_history_hash"], original["expected_history_hash"]) << seed;
    EXPECT_EQ(timeline["history_hash"], shrunk["expected_history_hash"]) << seed;
    EXPECT_EQ(timeline["plan"], timeline["shrunk_plan"]) << seed;
    // The summary's fault counts are the files': shrinking's work as the reports show it (red team
    // 33a: the original count written as the shrunk one, "N -> N faults", nothing else noticed).
    const json& kept = summary["failures"][seed[0] == '1' ? 0 : 1];
    ASSERT_EQ(kept["seed"], std::stoi(seed));
    EXPECT_EQ(kept["shrunk_faults"], shrunk["fault_plan"].size()) << seed;
    EXPECT_EQ(kept["original_faults"], original["fault_plan"].size()) << seed;
    // The page's replay command is the shrunk file's: the run it draws.
    EXPECT_EQ(timeline["replay_command"],
              std::string("fencesim replay failures/kleppmann-fencing-random-") + seed +
                  ".shrunk.replay.json")
        << seed;
  }

  const std::string junit = read_text(path("out/junit.xml"));
  EXPECT_NE(junit.find("<failure message=\"2 of 2 runs failed; first: sink-monotonicity: sink "
                       "&apos;payments&apos;"),
            std::string::npos)
      << junit;
  EXPECT_NE(junit.find("fencesim replay failures/kleppmann-fencing-random-1.replay.json"),
            std::string::npos);

  // Both replay files replay, from inside the folder, as recorded.
  const Result replay =
      fencesim("replay out/failures/kleppmann-fencing-random-1.shrunk.replay.json");
  EXPECT_EQ(replay.code, 1) << replay.err;
  EXPECT_NE(replay.out.find("replay matches"), std::string::npos) << replay.out;
  EXPECT_TRUE(fs::exists(path("corpus/kleppmann-fencing-random-1-sink-monotonicity.replay.json")));

  // Finding the same failures again adds nothing to the corpus.
  const Result again = fencesim(
      "sweep --scenario kleppmann-fencing --seeds 1..2 --strategy random --jobs 1 "
      "--sink-double accept-stale --out out2 --corpus corpus");
  EXPECT_EQ(again.code, 1);
  EXPECT_NE(again.out.find("corpus: 0 new failures kept in corpus"), std::string::npos)
      << again.out;
  EXPECT_EQ(std::distance(fs::directory_iterator(path("corpus")), fs::directory_iterator()), 2);
}

// A failure among many faults (swarm seed 2, 23 faults, every sink accepting stale tokens): the
// record's fault counts are its two replay files', the shrunk one the smaller (red team 33a: the
// original count written as the shrunk one showed "23 -> 23 faults" and chose groups' smallest
// examples wrongly, and every test passed, their failures having one fault to shrink).
TEST_F(SweepTest, AShrunkFailureCountsTheFaultsOfItsShrunkFile) {
  const Result result = fencesim(
      "sweep --scenario swarm --seeds 2..2 --strategy random --jobs 1 --sink-double accept-stale "
      "--out out");
  ASSERT_EQ(result.code, 1) << result.out << result.err;
  const json summary = read_json(path("out/summary.json"));
  ASSERT_EQ(summary["failures"].size(), 1u);
  const json& failure = summary["failures"][0];
  const json shrunk = read_json(path("out") / failure["shrunk_replay_file"].get<std::string>());
  const json original = read_json(path("out/failures/swarm-random-2.replay.json"));
  EXPECT_EQ(failure["original_faults"], original["fault_plan"].size());
  EXPECT_EQ(failure["shrunk_faults"], shrunk["fault_plan"].size());
  EXPECT_LT(failure["shrunk_faults"].get<std::size_t>(),
            failure["original_faults"].get<std::size_t>());
}

TEST_F(SweepTest, ASpecIsSweptAndItsFailuresReplay) {
  write("klepp.toml", "name = \"klepp-spec\"\nworkload = \"kleppmann-fencing\"\n");
  const Result result = fencesim(
      "sweep --spec klepp.toml --seeds 1..2 --strategy random --sink-double accept-stale "
      "--out out");
  ASSERT_EQ(result.code, 1) << result.out << result.err;
  EXPECT_EQ(read_json(path("out/summary.json"))["scenarios"][0]["name"], "klepp-spec");
  // The workers were forked with the spec registered; the replay file carries the spec.
  const Result replay = fencesim("replay out/failures/klepp-spec-random-1.shrunk.replay.json");
  EXPECT_EQ(replay.code, 1) << replay.err;
  EXPECT_NE(replay.out.find("replay matches"), std::string::npos) << replay.out;
  const Result missing = fencesim("sweep --spec nope.toml --seeds 1..2 --out out2");
  EXPECT_EQ(missing.code, 2);
  EXPECT_EQ(missing.err.rfind("fencesim: --spec: ", 0), 0u) << missing.err;
  EXPECT_FALSE(fs::exists(path("out2")));
}

// A worker that dies (or is killed) on one seed: the seed is reported as a harness error with its
// scenario, strategy and seed, and every other seed still runs.
void expect_crash_reported(const Result& result, const fs::path& out, const std::string& how) {
  EXPECT_EQ(result.code, 5) << result.out << result.err;
  EXPECT_NE(result.out.find("fencesim run --scenario kleppmann-fencing --seed 3 --strategy random\n"
                            "  kleppmann-fencing random seed 3: harness-error: " +
                            how),
            std::string::npos)
      << result.out;
  const std::vector<json> all = runs(out);
  ASSERT_EQ(all.size(), 5u);
  for (const json& run : all) {
    EXPECT_EQ(run["status"], run["seed"] == 3 ? "harness-error" : "pass") << run.dump();
  }
  const json summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["totals"]["harness_errors"], 1);
  ASSERT_EQ(summary["failures"].size(), 1u);
  EXPECT_EQ(summary["failures"][0]["replay_command"],
            "fencesim run --scenario kleppmann-fencing --seed 3 --strategy random");
}

TEST_F(SweepTest, ASeedThatCrashesItsWorkerIsReportedAndTheSweepGoesOn) {
  const std::string args =
      "sweep --scenario kleppmann-fencing --seeds 1..5 --strategy random --jobs 2 --out out";
  expect_crash_reported(fencesim(args, "FENCESIM_TEST_CRASH_SEED=3 "), path("out"),
                        "worker killed by signal 11");
}

// A run still going when the budget ends is cut short and counted on the budget's line (red team
// 40d-12: only cut determinism re-runs were counted, and the line never said so). Seed 3 hangs.
TEST_F(SweepTest, ARunCutShortByTheBudgetIsCounted) {
  const Result result =
      fencesim("sweep --scenario kleppmann-fencing --budget 2s --jobs 1 --out out",
               "FENCESIM_TEST_CRASH_SEED=3 FENCESIM_TEST_CRASH_KIND=hang ");
  EXPECT_EQ(result.code, 0) << result.out << result.err;
  const std::regex cut(R"(\nbudget: [^\n]*, [1-9][0-9]* runs cut short at the end\n)");
  EXPECT_TRUE(std::regex_search(result.out, cut)) << result.out;
}

// A nondeterministic run is a failure --stop-after-failures counts (red team 40d-05: only
// violations were counted, and a sweep finding nondeterminism went on through every seed).
TEST_F(SweepTest, ANondeterministicRunCountsTowardsStopAfterFailures) {
  const Result result = fencesim(
      "sweep --scenario kleppmann-fencing --seeds 1..2000 --strategy random --jobs 2 "
      "--stop-after-failures 1 --out out",
      "FENCESIM_TEST_CRASH_SEED=1 FENCESIM_TEST_CRASH_KIND=verdict-differs-in-another-worker ");
  EXPECT_EQ(result.code, 4) << result.out << result.err;
  EXPECT_NE(result.out.find("stopped early: 1 failure (--stop-after-failures)"), std::string::npos)
      << result.out;
  // The re-run of seed 1 ends while the other worker goes on with later seeds (about a hundred
  // here): far fewer than all of them.
  EXPECT_LT(runs(path("out")).size(), 1000u);
}

// A determinism re-run that kills its worker: the first run of seed 1 passed, its re-run never
// answered. The record must not read as deterministic (no re-run hash to compare is not "the
// same hash"): the sweep fails as nondeterministic and says how the re-run ended.
TEST_F(SweepTest, ADeterminismReRunThatKillsItsWorkerFailsTheSweep) {
  const Result result = fencesim(
      "sweep --scenario kleppmann-fencing --seeds 1..3 --strategy random --jobs 2 --out out",
      "FENCESIM_TEST_CRASH_SEED=1 FENCESIM_TEST_CRASH_KIND=segv-on-rerun ");
  EXPECT_EQ(result.code, 4) << result.out << result.err;
  const std::vector<json> all = runs(path("out"));
  ASSERT_EQ(all.size(), 3u);
  for (const json& run : all) {
    if (run["seed"] != 1) continue;
    EXPECT_EQ(run["rerun_history_hash"], "") << run.dump();
    EXPECT_NE(run["detail"].get<std::string>().find("determinism re-run: worker killed by signal 11"),
              std::string::npos)
        << run.dump();
  }
  const json summary = read_json(path("out/summary.json"));
  EXPECT_EQ(summary["totals"]["nondeterministic"], 1) << summary["totals"].dump();
}

// A spec's run that fails with no replay file (an exception out of the harness here) is told to be
// run again from its spec file: `fencesim run --scenario NAME` knows no spec's name, and the
// printed command would not run. The file travels in sweep.json, so a merge says the same.
TEST_F(SweepTest, AFailureOfASpecWithNoReplayFileIsRunAgainFromItsSpecFile) {
  write("my drift.toml",
        "name = \"drifting-fencing\"\nworkload = \"kleppmann-fencing\"\n[[fault]]\n"
        "kind = \"clock-drift\"\nnode = \"instance-1\"\nat = \"1s\"\namount = 200\n");
  const Result result =
      fencesim("sweep --spec 'my drift.toml' --seeds 1..2 --strategy random --jobs 1 --out out",
               "FENCESIM_TEST_CRASH_SEED=1 FENCESIM_TEST_CRASH_KIND=throw ");
  EXPECT_EQ(result.code, 5) << result.out << result.err;
  // The file's absolute path: the commands in a sweep's files are run from its output folder.
  const std::string spec = path("my drift.toml").string();
  const std::string again = "fencesim run --spec '" + spec + "' --seed 1 --strategy random";
  EXPECT_NE(result.out.find(again + "\n"), std::string::npos) << result.out;
  const json sweep = read_json(path("out/sweep.json"));
  EXPECT_EQ(sweep["configuration"]["scenarios"][0].value("spec", ""), spec) << sweep.dump();
  const json summary = read_json(path("out/summary.json"));
  ASSERT_EQ(summary["failures"].size(), 1u) << summary.dump();
  EXPECT_EQ(summary["failures"][0]["replay_command"], again) << summary["failures"][0].dump();
  // The command runs from inside the output folder: the hook is the sweep's, so the run passes.
  const Result rerun = fencesim(again.substr(std::string("fencesim ").size()), "cd out && ");
  EXPECT_EQ(rerun.code, 0) << rerun.out << rerun.err;
}

// A failure's picture that cannot be written (here a folder stands where its page goes) is named
// nowhere: the record says why in its note and names only the files that exist, so that no report
// links a page that is not there (red team 37a-56 kept the path of the file it failed to write).
TEST_F(SweepTest, AFailureFileThatCannotBeWrittenIsNamedNowhere) {
  const std::string args =
      "sweep --scenario kleppmann-fencing --seeds 1..1 --strategy random --jobs 1 "
      "--sink-double accept-stale --out out";
  ASSERT_EQ(fencesim(args).code, 1);
  const std::vector<json> first = runs(path("out"));
  ASSERT_EQ(first.size(), 1u);
  const std::string page = first[0]["failure"]["html"];
  ASSERT_FALSE(page.empty());
  fs::remove(path("out/" + page));
  fs::create_directories(path("out/" + page));  // the same sweep again writes over its own files
  const Result again = fencesim(args);
  EXPECT_EQ(again.code, 1) << again.out << again.err;
  const std::vector<json> all = runs(path("out"));
  ASSERT_EQ(all.size(), 1u);
  const json& failure = all[0]["failure"];
  EXPECT_TRUE(failure["html"].is_null()) << failure.dump();
  EXPECT_NE(failure["note"].get<std::string>().find(page + " not written: "), std::string::npos)
      << failure.dump();
  for (const char* field :
       {"replay_file", "shrunk_replay_file", "timeline_file", "perfetto_file"}) {
    if (!failure.contains(field) || failure[field].is_null()) continue;
    EXPECT_TRUE(fs::is_regular_file(path("out/" + failure[field].get<std::string>())))
        << field << ": " << failure.dump();
  }
}

// A determinism re-run that throws out of the harness: its worker lives and answers with the
// error, which the record carries in its detail; no re-run hash is not the same hash, so the sweep
// fails it as nondeterministic.
TEST_F(SweepTest, ADeterminismReRunThatThrowsFailsTheSweepAndSaysWhy) {
  const Result result = fencesim(
      "sweep --scenario kleppmann-fencing --seeds 1..3 --strategy random --jobs 2 --out out",
      "FENCESIM_TEST_CRASH_SEED=1 FENCESIM_TEST_CRASH_KIND=throw-on-rerun ");
  EXPECT_EQ(result.code, 4) << result.out << result.err;
  const std::vector<json> all = runs(path("out"));
  ASSERT_EQ(all.size(), 3u);
  bool seen = false;
  for (const json& run : all) {
    if (run["seed"] != 1) continue;
    seen = true;
    EXPECT_EQ(run["status"], "pass") << "the first run passed: " << run.dump();
    EXPECT_EQ(run["rerun_history_hash"], "") << run.dump();
    EXPECT_EQ(run["detail"],
              "determinism re-run: an exception escaped the harness: "
              "FENCESIM_TEST_CRASH_KIND=throw-on-rerun")
        << run.dump();
  }
  EXPECT_TRUE(seen);
  const json summary = read_json(path("out/summary.json"));
  EXPECT_EQ(summary["totals"]["nondeterministic"], 1) << summary["totals"].dump();
}

// A re-run that judges the same history another way: seed 1's re-run, in a worker that did not
// run its first run, finds a violation (the hook stands for an oracle whose verdict hangs on its
// process). The hashes agree; the sweep must still fail it as nondeterministic, which it does only
// if it compares the verdicts and re-runs the seed in another worker than the first.
TEST_F(SweepTest, ADeterminismReRunWithAnotherVerdictOnTheSameHistoryFailsTheSweep) {
  const Result result = fencesim(
      "sweep --scenario kleppmann-fencing --seeds 1..3 --strategy random --jobs 2 --out out",
      "FENCESIM_TEST_CRASH_SEED=1 FENCESIM_TEST_CRASH_KIND=verdict-differs-in-another-worker ");
  EXPECT_EQ(result.code, 4) << result.out << result.err;
  EXPECT_NE(result.out.find("nondeterministic"), std::string::npos) << result.out;
  const std::vector<json> all = runs(path("out"));
  ASSERT_EQ(all.size(), 3u);
  for (const json& run : all) {
    if (run["seed"] != 1) continue;
    EXPECT_EQ(run["status"], "pass") << run.dump();
    EXPECT_EQ(run["rerun_history_hash"], run["history_hash"]) << run.dump();
    EXPECT_EQ(run["rerun_status"], "violation") << run.dump();
    EXPECT_EQ(run["detail"], "determinism re-run: violation (test-hook)") << run.dump();
  }
  const json summary = read_json(path("out/summary.json"));
  EXPECT_EQ(summary["totals"]["nondeterministic"], 1) << summary["totals"].dump();
}

// A re-run that agrees: its verdict is recorded beside its hash, and the sweep passes.
TEST_F(SweepTest, ADeterminismReRunRecordsItsVerdict) {
  const Result result = fencesim(
      "sweep --scenario kleppmann-fencing --seeds 1..3 --strategy random --jobs 2 --out out", "");
  EXPECT_EQ(result.code, 0) << result.out << result.err;
  for (const json& run : runs(path("out"))) {
    if (run["seed"] != 1) continue;
    EXPECT_EQ(run["rerun_history_hash"], run["history_hash"]) << run.dump();
    EXPECT_EQ(run["rerun_status"], "pass") << run.dump();
  }
}

// A failure whose worker dies while shrinking it: the failure was found and its replay file
// kept before the shrinking began, so it stands (its status, its replay file, a note saying what
// was lost); only the shrunk file is missing.
TEST_F(SweepTest, AFailureWhoseWorkerDiesWhileShrinkingItStands) {
  const Result result = fencesim(
      "sweep --scenario kleppmann-fencing --seeds 1..3 --strategy random --jobs 2 "
      "--sink-double accept-stale --out out",
      "FENCESIM_TEST_CRASH_SEED=2 FENCESIM_TEST_CRASH_KIND=segv-while-shrinking ");
  EXPECT_EQ(result.code, 1) << result.out << result.err;
  const std::vector<json> all = runs(path("out"));
  ASSERT_EQ(all.size(), 3u);
  for (const json& run : all) {
    EXPECT_EQ(run["status"], "violation") << run.dump();
    ASSERT_TRUE(run["failure"].is_object()) << run.dump();
    const std::string replay = run["failure"]["replay_file"];
    EXPECT_TRUE(fs::exists(path("out") / replay)) << replay;
    const std::string note = run["failure"]["note"];
    if (run["seed"] == 2) {
      EXPECT_TRUE(run["failure"]["shrunk_replay_file"].is_null()) << run.dump();
      EXPECT_NE(note.find("worker killed by signal 11 (Segmentation fault) while shrinking or "
                          "drawing this failure"),
                std::string::npos)
          << run.dump();
    } else {
      EXPECT_EQ(note.find("while shrinking"), std::string::npos) << run.dump();
    }
  }
  const json summary = read_json(path("out/summary.json"));
  EXPECT_EQ(summary["totals"]["failed"], 3) << summary["totals"].dump();
}

// A failure whose shrinking outlives the budget: the budget cuts it short, and the failure stands
// with its replay file and a note; the sweep ends on time rather than waiting for it.
TEST_F(SweepTest, AFailureWhoseShrinkingTheBudgetCutsShortStands) {
  const Result result = fencesim(
      "sweep --scenario kleppmann-fencing --budget 3s --strategy random --jobs 2 "
      "--sink-double accept-stale --out out",
      "FENCESIM_TEST_CRASH_SEED=1 FENCESIM_TEST_CRASH_KIND=hang-while-shrinking ");
  EXPECT_EQ(result.code, 1) << result.out << result.err;
  bool seen = false;
  for (const json& run : runs(path("out"))) {
    if (run["seed"] != 1) continue;
    seen = true;
    EXPECT_EQ(run["status"], "violation") << run.dump();
    ASSERT_TRUE(run["failure"].is_object()) << run.dump();
    const std::string replay = run["failure"]["replay_file"];
    EXPECT_TRUE(fs::exists(path("out") / replay)) << replay;
    EXPECT_NE(run["failure"]["note"].get<std::string>().find(
                  "shrinking was cut short: the budget ran out"),
              std::string::npos)
        << run.dump();
  }
  EXPECT_TRUE(seen) << "seed 1's failure is not in runs.jsonl";
}

// A run that finds its failure late in its run timeout, then shrinks it: the shrinking has a run
// timeout of its own, not what the run left over. The hook spends 1.8 s before "found" and 1.8 s
// before the shrinking: either alone is within --run-timeout 3s, the two together are not.
TEST_F(SweepTest, TheShrinkingOfALateFailureGetsARunTimeoutOfItsOwn) {
  const Result result = fencesim(
      "sweep --scenario kleppmann-fencing --seeds 1..1 --strategy random --jobs 1 "
      "--sink-double accept-stale --run-timeout 3s --out out",
      "FENCESIM_TEST_CRASH_SEED=1 FENCESIM_TEST_CRASH_KIND=slow-around-found ");
  EXPECT_EQ(result.code, 1) << result.out << result.err;
  EXPECT_EQ(result.out.find("run-timeout"), std::string::npos) << result.out;
  const std::vector<json> all = runs(path("out"));
  ASSERT_EQ(all.size(), 1u);
  const json& run = all.front();
  EXPECT_EQ(run["status"], "violation") << run.dump();
  ASSERT_TRUE(run["failure"].is_object()) << run.dump();
  EXPECT_TRUE(run["failure"]["shrunk_replay_file"].is_string()) << run.dump();
  EXPECT_EQ(run.dump().find("run-timeout"), std::string::npos) << run.dump();
}

TEST_F(SweepTest, ASeedThatAbortsIsReportedWithOneWorker) {
  const std::string args =
      "sweep --scenario kleppmann-fencing --seeds 1..5 --strategy random --jobs 1 --out out";
  expect_crash_reported(
      fencesim(args, "FENCESIM_TEST_CRASH_SEED=3 FENCESIM_TEST_CRASH_KIND=abort "), path("out"),
      "worker killed by signal 6");
}

TEST_F(SweepTest, ASeedThatThrowsOutOfTheHarnessIsReported) {
  const std::string args =
      "sweep --scenario kleppmann-fencing --seeds 1..5 --strategy random --jobs 2 --out out";
  expect_crash_reported(
      fencesim(args, "FENCESIM_TEST_CRASH_SEED=3 FENCESIM_TEST_CRASH_KIND=throw "), path("out"),
      "an exception escaped the harness");
}

TEST_F(SweepTest, ASeedThatHangsIsKilledAtTheRunTimeout) {
  const std::string args =
      "sweep --scenario kleppmann-fencing --seeds 1..5 --strategy random --jobs 2 --out out "
      "--run-timeout 1s";
  expect_crash_reported(fencesim(args, "FENCESIM_TEST_CRASH_SEED=3 FENCESIM_TEST_CRASH_KIND=hang "),
                        path("out"), "worker exceeded --run-timeout (1s) and was killed");
}

// Under --strategy drawn each seed runs one strategy of its own (reports::drawn_strategy): a seed
// whose worker dies is recorded under that strategy, as its run would have been, so that its
// record reads back (a resume, a merge) and its replay command runs the world that died.
TEST_F(SweepTest, ADeadWorkerUnderTheDrawnStrategyNamesTheSeedsOwnStrategy) {
  const Result result = fencesim(
      "sweep --scenario kleppmann-fencing --seeds 1..5 --strategy drawn --jobs 2 --out out",
      "FENCESIM_TEST_CRASH_SEED=3 ");
  ASSERT_EQ(result.code, 5) << result.out << result.err;
  const std::string strategy = reports::drawn_strategy(3);
  bool found = false;
  for (const json& run : runs(path("out"))) {
    EXPECT_EQ(run["strategy"], reports::drawn_strategy(run["seed"].get<std::uint64_t>()))
        << run.dump();
    if (run["seed"] == 3) {
      found = true;
      EXPECT_EQ(run["status"], "harness-error") << run.dump();
    }
  }
  EXPECT_TRUE(found);
  const json summary = read_json(path("out/summary.json"));
  ASSERT_EQ(summary["failures"].size(), 1u);
  EXPECT_EQ(summary["failures"][0]["replay_command"],
            "fencesim run --scenario kleppmann-fencing --seed 3 --strategy " + strategy);
  // The folder reads back: merged alone, it is the same sweep.
  const Result merged = fencesim("merge out --out merged");
  EXPECT_EQ(merged.code, 5) << merged.out << merged.err;
}

// A sweep whose workers cannot be started is a harness error (exit 5), not a usage error (exit
// 2): CI reads 2 as "the command line is wrong" (red team 33a: main mapped the harness's own
// failures to 2, and no test could make one). Six file descriptors leave no room for a worker's
// pipes; the shell closes what it inherited first, so the limit counts from stdin, stdout and
// stderr alone. The limit is set by an inner shell, after the outer one has made the
// redirections (dash keeps copies of redirected descriptors at 10 and up, which the limit forbids).
TEST_F(SweepTest, AWorkerPoolThatCannotStartIsAHarnessError) {
  const Result result =
      fencesim("sweep --scenario kleppmann-fencing --seeds 1..2 --jobs 2 --out out",
               "exec 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-; sh -c 'ulimit -n 6; exec \"$0\" \"$@\"' ");
  EXPECT_EQ(result.code, 5) << result.out << result.err;
  EXPECT_EQ(result.err.rfind("fencesim: cannot make a pipe for a worker: ", 0), 0u) << result.err;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
}

// What the main job and the nightly run: no --strategy. Each seed then runs under its drawn
// strategy, so a sweep meets PCT's schedules as well as random walks (red team 33a: a default of
// "random" made every sweep a random walk, three times the runs, and every night green).
TEST_F(SweepTest, ASweepWithoutAStrategyRunsEachSeedUnderItsDrawnOne) {
  const Result result = fencesim("sweep --scenario kleppmann-fencing --seeds 1..8 --out out");
  ASSERT_EQ(result.code, 0) << result.out << result.err;
  std::set<std::string> strategies;
  std::size_t count = 0;
  for (const json& run : runs(path("out"))) {
    ++count;
    EXPECT_EQ(run["strategy"], reports::drawn_strategy(run["seed"].get<std::uint64_t>()))
        << run.dump();
    strategies.insert(run["strategy"].get<std::string>());
  }
  EXPECT_EQ(count, 8u);
  EXPECT_TRUE(strategies.contains("random")) << "no random walk among seeds 1..8";
  EXPECT_TRUE(std::any_of(strategies.begin(), strategies.end(),
                          [](const std::string& s) { return s.starts_with("pct"); }))
      << "no PCT run among seeds 1..8";
}

TEST_F(SweepTest, AShardTakesEveryNthSeedOfTheRange) {
  const Result result = fencesim(
      "sweep --scenario kleppmann-fencing --seeds 11..20 --strategy pct --shard 1/3 --jobs 2 "
      "--out out");
  ASSERT_EQ(result.code, 0) << result.err;
  std::set<std::uint64_t> seeds;
  for (const json& run : runs(path("out"))) seeds.insert(run["seed"].get<std::uint64_t>());
  EXPECT_EQ(seeds, (std::set<std::uint64_t>{12, 15, 18}));
  EXPECT_EQ(read_json(path("out/sweep.json"))["shards"]["indices"], json::array({1}));
}

TEST_F(SweepTest, ABudgetGivesEveryScenarioAndStrategyTheSameSeeds) {
  const Result result = fencesim(
      "sweep --scenario kleppmann-fencing --scenario expiry-during-write --budget 2s --jobs 2 "
      "--strategy both --out out");
  ASSERT_EQ(result.code, 0) << result.err;
  EXPECT_NE(result.out.find("budget: "), std::string::npos) << result.out;
  std::map<std::pair<std::string, std::string>, std::set<std::uint64_t>> seeds;
  for (const json& run : runs(path("out"))) {
    seeds[{run["scenario"], run["strategy"]}].insert(run["seed"].get<std::uint64_t>());
  }
  ASSERT_EQ(seeds.size(), 4u);
  // Every seed begun is finished for every scenario and strategy, unless the budget's hard stop
  // killed it while it ran: the sweep counts the runs it cut (summary.json, sweep.json and its
  // budget line), and on a loaded machine it may cut some (red team 43c saw 307 seeds against
  // 309). Each set is still a prefix 1..n of the seeds, and the runs missing from the longest are
  // among those cut (a seed whose every run was cut is missing from all four, so not counted).
  const json summary = read_json(path("out/summary.json"));
  const std::uint64_t cut = summary["budget"]["runs_cut_short"].get<std::uint64_t>();
  EXPECT_EQ(read_json(path("out/sweep.json"))["runs_cut_by_budget"], cut);
  EXPECT_EQ(result.out.find(fmt::format(", {} runs cut short at the end", cut)) !=
                std::string::npos,
            cut > 0)
      << result.out;
  std::uint64_t longest = 0;
  for (const auto& [key, set] : seeds) {
    ASSERT_FALSE(set.empty()) << key.first << " " << key.second;
    EXPECT_EQ(*set.begin(), 1u) << key.first << " " << key.second;
    EXPECT_EQ(*set.rbegin(), set.size()) << key.first << " " << key.second;  // 1..n, no gaps
    longest = std::max<std::uint64_t>(longest, set.size());
  }
  std::uint64_t missing = 0;
  for (const auto& [key, set] : seeds) missing += longest - set.size();
  EXPECT_LE(missing, cut) << result.out;
  EXPECT_EQ(summary["budget"]["requested_seconds"], 2.0);
  EXPECT_EQ(summary["configuration"]["budget_ms"], 2000);
}

TEST_F(SweepTest, ARerunOfTheSameSweepReplacesItsReportsAndKeepsOtherFiles) {
  const std::string args =
      "sweep --scenario kleppmann-fencing --seeds 1..2 --strategy both --out out";
  ASSERT_EQ(fencesim(args).code, 0);
  write("out/notes.txt", "mine");
  const Result again = fencesim(args);
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(read_text(path("out/notes.txt")), "mine");
  EXPECT_EQ(runs(path("out")).size(), 4u);
}

TEST_F(SweepTest, BadRangesAndShardsAreOneLineErrors) {
  expect_usage_error(fencesim("sweep --seeds 5..1"),
                     "--seeds: expected A..B with A <= B, got '5..1'");
  expect_usage_error(fencesim("sweep --seeds 1..x"),
                     "--seeds: expected A..B with A <= B, got '1..x'");
  expect_usage_error(fencesim("sweep --seeds 1..99999999999999999999"),
                     "--seeds: '99999999999999999999' is out of range (0..18446744073709551615)");
  expect_usage_error(fencesim("sweep --seeds 1..4 --shard 2/2"),
                     "--shard: I must be less than N (shards are numbered from 0), got '2/2'");
  expect_usage_error(fencesim("sweep --seeds 1..4 --shard 0/0"),
                     "--shard: N must be at least 1, got '0/0'");
  expect_usage_error(fencesim("sweep --seeds 1..4 --shard 1"),
                     "--shard: expected I/N with 0 <= I < N, got '1'");
  expect_usage_error(fencesim("sweep --seeds 1..4 --shard -1/2"),
                     "--shard: expected I/N with 0 <= I < N, got '-1/2'");
  EXPECT_FALSE(fs::exists(path("fencesim-out")));
}

TEST_F(SweepTest, BadBudgetsAreOneLineErrors) {
  expect_usage_error(fencesim("sweep --budget 0s"), "--budget: '0s' must be longer than zero");
  expect_usage_error(fencesim("sweep --budget 90"),
                     "--budget: expected a duration such as 90s, 2m, 1h30m or 500ms, got '90'");
  expect_usage_error(fencesim("sweep --budget 2x"),
                     "--budget: expected a duration such as 90s, 2m, 1h30m or 500ms, got '2x'");
  expect_usage_error(fencesim("sweep --budget 200h"), "--budget: '200h' is longer than a week");
  expect_usage_error(fencesim("sweep --budget 1m --seeds 1..3"),
                     "--seeds and --budget: give one of them, not both");
  expect_usage_error(fencesim("sweep"),
                     "give the seeds to run: --seeds A..B or --budget DURATION (e.g. 2m)");
  expect_usage_error(fencesim("sweep --seeds 1..2 --run-timeout 5"),
                     "--run-timeout: expected a duration such as 90s, 2m, 1h30m or 500ms, got '5'");
  expect_usage_error(fencesim("sweep --seeds 1..2 --jobs 0"), "--jobs: expected 1..512, got '0'");
  expect_usage_error(fencesim("sweep --seeds 1..2 --strategy both2"),
                     "--strategy: unknown strategy 'both2' (expected drawn, random, pct, "
                     "pct-dN or both)");
  expect_usage_error(fencesim("sweep --seeds 1..2 --scenario kleppmann-fencing --scenario "
                              "kleppmann-fencing"),
                     "--scenario: 'kleppmann-fencing' is given twice");
  EXPECT_FALSE(fs::exists(path("fencesim-out")));
}

TEST_F(SweepTest, AnOutputFolderThatIsAFileIsRefused) {
  write("taken", "keep me");
  expect_usage_error(fencesim("sweep --seeds 1..2 --out taken"),
                     "--out: 'taken' is a file, not a folder");
  EXPECT_EQ(read_text(path("taken")), "keep me");
}

TEST_F(SweepTest, AnOutputFolderThatCannotBeWrittenIsRefused) {
  // Root writes anywhere permissions allow nothing; sysfs refuses even root.
  std::string folder = "locked";
  if (geteuid() == 0) {
    folder = "/sys/kernel";
    if (!fs::is_directory(folder)) GTEST_SKIP() << "running as root without /sys";
  } else {
    fs::create_directories(path(folder));
    fs::permissions(path(folder), fs::perms::owner_read | fs::perms::owner_exec);
  }
  const Result result = fencesim("sweep --seeds 1..2 --out " + folder);
  EXPECT_EQ(result.code, 2);
  EXPECT_EQ(result.err.rfind("fencesim: --out: cannot write in '" + folder + "': ", 0), 0u)
      << result.err;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1);
}

TEST_F(SweepTest, AFolderOfOtherFilesOrAnotherSweepIsRefusedAndKept) {
  write("mine/notes.txt", "keep me");
  expect_usage_error(fencesim("sweep --seeds 1..2 --out mine"),
                     "--out: 'mine' is not empty and holds no fencesim results; give an empty or "
                     "new folder");
  EXPECT_EQ(read_text(path("mine/notes.txt")), "keep me");
  EXPECT_EQ(std::distance(fs::directory_iterator(path("mine")), fs::directory_iterator()), 1);

  ASSERT_EQ(fencesim("sweep --scenario kleppmann-fencing --seeds 1..2 --out old").code, 0);
  const std::string before = read_text(path("old/runs.jsonl"));
  expect_usage_error(fencesim("sweep --scenario kleppmann-fencing --seeds 1..3 --out old"),
                     "--out: 'old' holds the results of another sweep (other version, "
                     "configuration or shard); give an empty or new folder");
  EXPECT_EQ(read_text(path("old/runs.jsonl")), before);
}

// The pool of worker processes (cli/sweep_pool.h), driven here as the sweep's parent drives it:
// tasks sent, answers waited for, draw answers told. Every seed of kleppmann-fencing fails with a
// stale-accepting sink, so each task's first answer is "found".
class WorkerPoolTest : public BinaryTest {
 protected:
  void SetUp() override {
    BinaryTest::SetUp();
    registry_ = scenarios::builtin_scenarios();
    plan_.config.scenarios = {reports::SweptScenario{"kleppmann-fencing", "", {}}};
    plan_.config.strategies = {"random"};
    plan_.config.sink_double = "accept-stale";
    plan_.out = path("out").string();
    fs::create_directories(path("out/failures"));
    setup_ = WorkerSetup{&registry_, &plan_, std::nullopt};
  }

  static TaskMessage task(std::uint64_t id, std::uint64_t seed) {
    return TaskMessage{false, id, SweepTask{0, 0, seed}};
  }

  // The pool's next event, in the order it reported them, waiting at most 20 s (none: an event of
  // kind kDied with no tasks and death "none", which every check below refuses).
  PoolEvent next_event(WorkerPool& pool) {
    for (int tick = 0; tick < 200 && events_.empty(); ++tick) {
      for (PoolEvent& event : pool.wait(0.1)) events_.push_back(std::move(event));
    }
    PoolEvent next;
    if (events_.empty()) {
      next.kind = PoolEvent::Kind::kDied;
      next.death = "none";
      return next;
    }
    next = std::move(events_.front());
    events_.pop_front();
    return next;
  }

  scenarios::ScenarioRegistry registry_;
  SweepPlan plan_;
  WorkerSetup setup_;
  std::deque<PoolEvent> events_;  // reported by the pool, not yet taken
};

// The parent sends a worker a batch of tasks; the worker, at its first failure, waits for the
// answer to "found" and reads the batch's other tasks first. They are kept and served after it, in
// the order they came: a task dropped there is never answered (the sweep hangs until the run
// timeout calls the worker dead), and one served out of order answers for a task the pool does not
// expect first (the worker is killed as broken).
TEST_F(WorkerPoolTest, TasksThatComeWhileAWorkerWaitsForADrawAnswerAreServedInOrder) {
  WorkerPool pool(setup_, 1, 60);
  const pid_t worker = pool.pid(0);
  pool.send(0, {task(1, 1), task(2, 2), task(3, 3)});
  for (std::uint64_t id = 1; id <= 3; ++id) {
    const PoolEvent found = next_event(pool);
    ASSERT_EQ(found.kind, PoolEvent::Kind::kMessage) << id << ": " << found.death;
    EXPECT_EQ(found.answer.type, "found") << id;
    EXPECT_EQ(found.answer.id, id);
    pool.tell(worker, encode_draw(id, false));
    const PoolEvent done = next_event(pool);
    ASSERT_EQ(done.kind, PoolEvent::Kind::kMessage) << id << ": " << done.death;
    EXPECT_EQ(done.answer.type, "done") << id;
    EXPECT_EQ(done.answer.id, id);
    ASSERT_TRUE(done.answer.record.has_value()) << id;
    EXPECT_EQ(done.answer.record->seed, id);
    EXPECT_EQ(done.answer.record->status, "violation");
  }
  EXPECT_FALSE(pool.busy());
  EXPECT_EQ(pool.pid(0), worker) << "the worker was replaced";
  pool.close();
}

// A worker whose answer names a task it was not given (here: one told to it past the pool, so the
// pool holds another first) is broken: killed at once, reported dead with the task it held (whose
// seed the sweep then reports) and with the answer, and replaced, never trusted.
TEST_F(WorkerPoolTest, AWorkerThatAnswersForAnotherTaskIsKilledWithTheSeedItHeld) {
  plan_.config.sink_double = "";  // passing runs: "done" at once
  WorkerPool pool(setup_, 1, 60);
  const pid_t worker = pool.pid(0);
  pool.tell(worker, encode_task(task(99, 7)));
  pool.send(0, {task(1, 5)});
  const PoolEvent event = next_event(pool);
  ASSERT_EQ(event.kind, PoolEvent::Kind::kDied) << "answered: " << event.answer.type << " " << event.answer.id;
  EXPECT_EQ(event.pid, worker);
  EXPECT_TRUE(event.death.starts_with("sent a malformed answer: {\"type\":\"done\",\"id\":99,"))
      << event.death;
  ASSERT_EQ(event.tasks.size(), 1u);
  EXPECT_EQ(event.tasks.front().id, 1u);
  EXPECT_EQ(event.tasks.front().task.seed, 5u);
  EXPECT_GT(pool.pid(0), 0);
  EXPECT_NE(pool.pid(0), worker) << "a new worker takes its place";
  EXPECT_EQ(::kill(worker, 0), -1) << "the broken worker is gone";
  pool.close();
}

}  // namespace
}  // namespace fencesim::cli::testing::sweep_test
