// `fencesim merge`: two shards merged give the same seeds, failures, history hashes and counts as
// the same sweep unsharded; and the merges it must refuse (one line, exit 2, nothing written).
#include <algorithm>
#include <map>

#include "cli/tests/sweep_fixture.h"

namespace fencesim::cli::testing::merge_test {
namespace {

using nlohmann::json;

// Two scenarios, one of which fails on every seed with the broken sink: passes, failures (shrunk,
// with files to copy) and determinism re-runs (seeds 1 and 11) in one small sweep. Every failure
// is drawn (--draw-limit above its 24), so that the whole sweep and the shards draw the same ones.
const std::string kSweep =
    "sweep --scenario kleppmann-fencing --scenario lease-store-restart --seeds 1..12 "
    "--sink-double accept-stale --draw-limit 24 --strategy both";

// The summary without the fields that depend on the machine and on timing, and without `shards`,
// which says how the results were made.
json without_wall_time(json summary) {
  summary.erase("shards");
  summary["totals"].erase("wall_seconds");
  summary["totals"].erase("seeds_per_second");
  summary["totals"].erase("cpu_seconds");
  summary["totals"].erase("distinct_per_cpu_second");
  summary["totals"].erase("mark_hits_per_cpu_second");
  for (json& scenario : summary["scenarios"]) {
    scenario.erase("wall_seconds");
    scenario.erase("seeds_per_second");
    scenario.erase("virtual_per_wall");
    scenario.erase("cpu_seconds");
    scenario.erase("distinct_per_cpu_second");
  }
  return summary;
}

class MergeTest : public BinaryTest {
 protected:
  void make_shards() {
    const Result first = fencesim(kSweep + " --jobs 2 --shard 0/2 --out s0");
    ASSERT_EQ(first.code, 1) << first.out << first.err;
    const Result second = fencesim(kSweep + " --jobs 1 --shard 1/2 --out s1");
    ASSERT_EQ(second.code, 1) << second.out << second.err;
  }

  // Edits a shard's sweep.json.
  void edit_manifest(const std::string& folder, const std::function<void(json&)>& edit) {
    json manifest = read_json(path(folder + "/sweep.json"));
    edit(manifest);
    write(folder + "/sweep.json", manifest.dump(2));
  }
};

TEST_F(MergeTest, TwoShardsMergeToTheUnshardedSweep) {
  make_shards();
  const Result whole = fencesim(kSweep + " --jobs 2 --out whole");
  ASSERT_EQ(whole.code, 1) << whole.err;
  const Result merge = fencesim("merge --out merged s0 s1");
  ASSERT_EQ(merge.code, 1) << merge.out << merge.err;
  EXPECT_NE(merge.out.find("merge: 2 shards of 1..12 into merged"), std::string::npos) << merge.out;

  // Every run: the same seeds, statuses, history hashes, marks, failures and re-runs.
  const std::vector<json> merged_runs = runs(path("merged"));
  EXPECT_EQ(merged_runs.size(), 48u);
  EXPECT_EQ(read_text(path("merged/runs.jsonl")), read_text(path("whole/runs.jsonl")));
  std::uint64_t failures = 0, reruns = 0;
  for (const json& run : merged_runs) {
    failures += run["status"] != "pass";
    reruns += !run["rerun_history_hash"].is_null();
  }
  EXPECT_EQ(failures, 24u);  // kleppmann-fencing, every seed
  EXPECT_EQ(reruns, 4u);     // lease-store-restart passes; seeds 1 and 11, both strategies
  // The counts and failures of the summary.
  const json merged = read_json(path("merged/summary.json"));
  EXPECT_EQ(without_wall_time(merged), without_wall_time(read_json(path("whole/summary.json"))));
  EXPECT_EQ(merged["shards"]["indices"], json::array({0, 1}));
  EXPECT_EQ(merged["totals"]["failed"], 24);
  // The failures' files came along, and the merged folder's commands work from inside it.
  for (const json& failure : merged["failures"]) {
    EXPECT_TRUE(fs::exists(path("merged") / failure["replay_file"].get<std::string>()));
    EXPECT_TRUE(fs::exists(path("merged") / failure["shrunk_replay_file"].get<std::string>()));
  }
  EXPECT_EQ(read_text(path("merged/junit.xml")).find("<testcase"),
            read_text(path("whole/junit.xml")).find("<testcase"));
  EXPECT_EQ(read_json(path("merged/sweep.json"))["completed"], true);
}

// Shards run side by side: the merged sweep took as long as its longest shard, not their sum (red
// team 35d-17: the sum, and every seeds-per-second figure of a merged night a fraction of the
// truth).
TEST_F(MergeTest, TheMergedSweepTookAsLongAsItsLongestShard) {
  make_shards();
  edit_manifest("s0", [](json& manifest) { manifest["wall_seconds"] = 30.0; });
  edit_manifest("s1", [](json& manifest) { manifest["wall_seconds"] = 50.0; });
  const Result merge = fencesim("merge --out merged s0 s1");
  ASSERT_EQ(merge.code, 1) << merge.out << merge.err;
  const json merged = read_json(path("merged/summary.json"));
  EXPECT_DOUBLE_EQ(merged["totals"]["wall_seconds"].get<double>(), 50.0);
  EXPECT_DOUBLE_EQ(read_json(path("merged/sweep.json"))["wall_seconds"].get<double>(), 50.0);
}

// The runs each shard's budget cut are the merged sweep's: their sum.
TEST_F(MergeTest, TheRunsEachShardsBudgetCutAreAddedUp) {
  make_shards();
  edit_manifest("s0", [](json& manifest) { manifest["runs_cut_by_budget"] = 2; });
  edit_manifest("s1", [](json& manifest) { manifest["runs_cut_by_budget"] = 3; });
  const Result merge = fencesim("merge --out merged s0 s1");
  ASSERT_EQ(merge.code, 1) << merge.out << merge.err;
  EXPECT_EQ(read_json(path("merged/sweep.json"))["runs_cut_by_budget"], 5);
}

TEST_F(MergeTest, MixedVersionsAreRefused) {
  make_shards();
  edit_manifest("s1", [](json& m) { m["fencesim_version"] = "0.0.9"; });
  const std::string version = read_json(path("s0/sweep.json"))["fencesim_version"];
  expect_usage_error(fencesim("merge --out merged s0 s1"),
                     "merge: 's0' was made by fencesim " + version +
                         " and 's1' by fencesim 0.0.9; shards merge only from one version");
  EXPECT_FALSE(fs::exists(path("merged")));
}

TEST_F(MergeTest, DifferentConfigurationsAreRefused) {
  make_shards();
  edit_manifest("s1", [](json& m) { m["configuration"]["determinism_every"] = 5; });
  expect_usage_error(fencesim("merge --out merged s0 s1"),
                     "merge: 's0' and 's1' are different sweeps (determinism-every differ)");
  EXPECT_FALSE(fs::exists(path("merged")));
}

// A scenario of one name is the same scenario only with the same description and floors: shards
// of two builds that claim different floors are two sweeps, and one merged verdict would judge
// both by one shard's floors (red team 34b: scenarios compared by name alone).
TEST_F(MergeTest, ShardsWhoseScenariosClaimOtherFloorsAreRefused) {
  make_shards();
  for (const auto& [field, edit] : std::vector<std::pair<std::string, std::function<void(json&)>>>{
           {"marks", [](json& s) { s["marks"].push_back("lease-yielded >= 50%"); }},
           {"description", [](json& s) { s["description"] = "another story"; }}}) {
    const json original = read_json(path("s1/sweep.json"));
    edit_manifest("s1", [&](json& m) { edit(m["configuration"]["scenarios"][0]); });
    expect_usage_error(fencesim("merge --out merged s0 s1"),
                       "merge: 's0' and 's1' are different sweeps (scenarios differ)");
    EXPECT_FALSE(fs::exists(path("merged"))) << field;
    write("s1/sweep.json", original.dump(2));
  }
}

// The spec file a scenario was read from says how to run a failure again, not which runs were made:
// shards that name one spec by two paths (two machines, two working folders) merge, and the merge
// keeps the first shard's file.
TEST_F(MergeTest, ShardsNamingASpecByTwoPathsMerge) {
  make_shards();
  edit_manifest("s0", [](json& m) { m["configuration"]["scenarios"][0]["spec"] = "a/x.toml"; });
  edit_manifest("s1", [](json& m) { m["configuration"]["scenarios"][0]["spec"] = "/b/x.toml"; });
  const Result merged = fencesim("merge --out merged s0 s1");
  ASSERT_EQ(merged.code, 1) << "merged, with the shards' failures: " << merged.out << merged.err;
  EXPECT_EQ(read_json(path("merged/sweep.json"))["configuration"]["scenarios"][0].value("spec", ""),
            "a/x.toml");
}

TEST_F(MergeTest, DuplicateAndMissingShardsAreRefused) {
  make_shards();
  expect_usage_error(fencesim("merge --out merged s0 s0"),
                     "merge: shard 0/2 is given twice ('s0' and 's0')");
  expect_usage_error(fencesim("merge --out merged s1"), "merge: shard 0/2 is missing");
  // The last shard missing too (red team 37a-50 looked for missing shards below the last only: the
  // first shard alone merged into the reports of a whole sweep).
  expect_usage_error(fencesim("merge --out merged s0"), "merge: shard 1/2 is missing");
  EXPECT_FALSE(fs::exists(path("merged")));
}

// Shards of different splits (one of 2, one of 3) cover the range between them with holes and
// overlaps, though their indices 0 and 1 look like a whole: refused before anything is written.
TEST_F(MergeTest, ShardsOfDifferentSplitsAreRefused) {
  const Result first = fencesim(kSweep + " --jobs 2 --shard 0/2 --out s0");
  ASSERT_EQ(first.code, 1) << first.out << first.err;
  const Result third = fencesim(kSweep + " --jobs 2 --shard 1/3 --out t1");
  ASSERT_EQ(third.code, 1) << third.out << third.err;
  expect_usage_error(fencesim("merge --out merged s0 t1"),
                     "merge: 's0' is one of 2 shards and 't1' one of 3");
  EXPECT_FALSE(fs::exists(path("merged")));
}

TEST_F(MergeTest, AnUnfinishedOrCorruptShardIsRefused) {
  make_shards();
  edit_manifest("s1", [](json& m) { m["completed"] = false; });
  expect_usage_error(fencesim("merge --out merged s0 s1"),
                     "merge: 's1' holds a sweep that did not complete (sweep.json says "
                     "completed: false)");
  edit_manifest("s1", [](json& m) { m["completed"] = true; });
  std::string lines = read_text(path("s0/runs.jsonl"));
  lines.insert(lines.find('\n') + 1, "{\"scenario\": 7}\n");
  write("s0/runs.jsonl", lines);
  expect_usage_error(fencesim("merge --out merged s0 s1"),
                     "merge: s0/runs.jsonl line 2: field 'scenario' must be a string");
  expect_usage_error(fencesim("merge --out merged nowhere s1"), "merge: 'nowhere' is not a folder");
  EXPECT_FALSE(fs::exists(path("merged")));
}

// A run in two shards (a shard's folder copied by hand, two machines given overlapping seeds) would
// be counted twice: its failure twice, its marks twice, a claim's rate raised by the copy. Every
// run is refused so, a passing one as much as a failing one.
TEST_F(MergeTest, ARunInTwoShardsIsRefusedWhetherItPassedOrFailed) {
  make_shards();
  const std::vector<std::string> lines = read_lines(path("s0/runs.jsonl"));
  const std::string original = read_text(path("s1/runs.jsonl"));
  std::size_t refused = 0;
  for (const bool failing : {false, true}) {
    const auto line = std::find_if(lines.begin(), lines.end(), [&](const std::string& text) {
      return (json::parse(text)["status"] != "pass") == failing;
    });
    ASSERT_NE(line, lines.end()) << "shard 0 has a " << (failing ? "failing" : "passing") << " run";
    const json run = json::parse(*line);
    write("s1/runs.jsonl", original + *line + "\n");
    expect_usage_error(fencesim("merge --out merged s0 s1"),
                       "merge: " + run["scenario"].get<std::string>() + " " +
                           run["strategy"].get<std::string>() + " seed " +
                           std::to_string(run["seed"].get<std::uint64_t>()) +
                           " is in two shards (again in 's1')");
    ++refused;
  }
  EXPECT_EQ(refused, 2u);
  EXPECT_FALSE(fs::exists(path("merged")));
}

// Each failure's files come along into the merged folder, every one its record names: the replay
// files, the timeline's data, its page and its Perfetto trace. The merged report links to the pages
// and traces, and a person opens them from there; a merge that left some behind would leave links
// that lead nowhere, and nothing would say so.
TEST_F(MergeTest, EveryFileAFailureNamesIsInTheMergedFolder) {
  make_shards();
  const Result merge = fencesim("merge --out merged s0 s1");
  ASSERT_EQ(merge.code, 1) << merge.out << merge.err;
  std::map<std::string, std::size_t> named;
  for (const json& run : runs(path("merged"))) {
    if (run["failure"].is_null()) continue;
    for (const char* key :
         {"replay_file", "shrunk_replay_file", "timeline_file", "html", "perfetto_file"}) {
      if (run["failure"][key].is_null()) continue;
      const std::string file = run["failure"][key];
      ++named[key];
      EXPECT_TRUE(fs::is_regular_file(path("merged") / file)) << key << ": " << file;
      EXPECT_EQ(read_text(path("merged") / file),
                read_text(path(run["seed"].get<std::uint64_t>() % 2 == 1 ? "s0" : "s1") / file))
          << file;
    }
  }
  // Every kind of file was there to copy (--draw-limit 24 draws every failure).
  for (const char* key :
       {"replay_file", "shrunk_replay_file", "timeline_file", "html", "perfetto_file"}) {
    EXPECT_GT(named[key], 0u) << key;
  }
}

// Two shards a budget (or a signal) stopped at different seeds: each never began its seeds from
// where it stopped on, so the merged sweep lacks every seed from the earlier of the two stops. A
// merge that took the later stop would drop the seeds between the two from what it says it lacks,
// and claim runs it never made.
TEST_F(MergeTest, ShardsStoppedAtDifferentSeedsLackEverySeedFromTheEarlierStop) {
  make_shards();
  // Shard 0 (odd seeds) stopped before seed 7, shard 1 (even seeds) before seed 10: its runs and
  // times from there on go, and its sweep.json says so, as a stopped shard's does.
  for (const auto& [folder, stop] : {std::pair<std::string, std::uint64_t>{"s0", 7}, {"s1", 10}}) {
    for (const char* file : {"runs.jsonl", "run_times.jsonl"}) {
      std::string kept;
      for (const std::string& line : read_lines(path(folder + "/" + file))) {
        if (json::parse(line)["seed"].get<std::uint64_t>() < stop) kept += line + "\n";
      }
      write(folder + "/" + file, kept);
    }
    edit_manifest(folder, [&](json& m) {
      m["interrupted"] = json{
          {"signal", "SIGTERM"},
          {"seeds_not_run", json::array({json{{"first", stop}, {"last", nullptr}, {"every", 2}}})},
          {"seeds_not_run_text", std::to_string(stop) + ".."},
          {"budget_left_ms", nullptr}};
    });
  }
  const Result merge = fencesim("merge --out merged s0 s1");
  ASSERT_EQ(merge.code, 1) << merge.out << merge.err;  // kleppmann-fencing's failures
  EXPECT_NE(merge.out.find("merge: incomplete: seeds not run: 7.. "), std::string::npos)
      << merge.out;
  const json summary = read_json(path("merged/summary.json"));
  EXPECT_EQ(summary["interrupted"]["seeds_not_run_text"], "7..") << summary["interrupted"].dump();
  // Seeds 7 and 9 have no run: the merged list says so.
  for (const json& run : runs(path("merged"))) {
    const std::uint64_t seed = run["seed"];
    EXPECT_LT(seed, 10u);
    EXPECT_FALSE(seed % 2 == 1 && seed >= 7) << run.dump();
  }
}

// A shard's runs.jsonl names the failure files the merge copies, from the shard and into the merged
// folder: a name that climbs out of failures/ would read and write elsewhere
// ("failures/../runs.jsonl" is the shard's own runs, copied over the merged folder's). Refused with
// one line, nothing written, whether the name starts in failures/ or not.
TEST_F(MergeTest, AFailureFileNamedOutsideFailuresIsRefused) {
  make_shards();
  const std::vector<std::string> lines = read_lines(path("s0/runs.jsonl"));
  const auto failing = std::find_if(lines.begin(), lines.end(), [](const std::string& text) {
    return !json::parse(text)["failure"].is_null() &&
           json::parse(text)["failure"]["replay_file"].is_string();
  });
  ASSERT_NE(failing, lines.end());
  for (const std::string name : {"failures/../runs.jsonl", "elsewhere/x.json"}) {
    std::string edited;
    for (const std::string& line : lines) {
      json run = json::parse(line);
      if (line == *failing) run["failure"]["replay_file"] = name;
      edited += run.dump() + "\n";
    }
    write("s0/runs.jsonl", edited);
    expect_usage_error(fencesim("merge --out merged s0 s1"),
                       "merge: s0/runs.jsonl names '" + name + "', outside failures/");
    EXPECT_FALSE(fs::exists(path("merged")));
  }
}

TEST_F(MergeTest, AnOutputFolderHoldingOtherFilesIsRefusedAndKept) {
  make_shards();
  write("merged/notes.txt", "keep me");
  expect_usage_error(fencesim("merge --out merged s0 s1"),
                     "--out: 'merged' is not empty and holds no fencesim results; give an empty "
                     "or new folder");
  EXPECT_EQ(read_text(path("merged/notes.txt")), "keep me");
  expect_usage_error(fencesim("merge --out s0 s0 s1"),
                     "--out: 's0' is one of the shards; give a new folder");
}

}  // namespace
}  // namespace fencesim::cli::testing::merge_test
