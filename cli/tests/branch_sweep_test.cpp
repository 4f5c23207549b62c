// `fencesim sweep --branch-at MARK --branches K` end to end (cli/sweep_branch.h): every hit of a
// chosen mark forks K branch runs, each a run of its own in runs.jsonl with a replay file; the
// branches of one hit have distinct histories; a branch replays without fork (`fencesim replay`
// and `fencesim run --branch`) to the history hash its forked run had; bad names exit 2.
#include <map>
#include <set>

#include "cli/tests/sweep_fixture.h"

namespace fencesim::cli::testing::branch_sweep_test {
namespace {

using nlohmann::json;

class BranchSweepTest : public BinaryTest {};

constexpr int kBranches = 3;

TEST_F(BranchSweepTest, EachHitForksKBranchRunsThatReplayToTheirHashes) {
  const Result result = fencesim(
      "sweep --scenario kleppmann-fencing --seeds 1..3 --strategy random --jobs 1 --out out "
      "--branch-at stale-write-refused --branches " +
      std::to_string(kBranches));
  ASSERT_EQ(result.code, 0) << result.out << result.err;

  std::uint64_t points = 0;
  // Per branch point (seed, event): the branches' numbers and hashes.
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::set<std::uint64_t>> numbers;
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::set<std::string>> hashes;
  std::map<std::uint64_t, std::string> parent_hash;
  std::vector<json> branches;
  for (const json& run : runs(path("out"))) {
    const std::uint64_t seed = run["seed"];
    if (!run.contains("branch")) {
      ASSERT_TRUE(run.contains("branch_points")) << run.dump();
      points += run["branch_points"].get<std::uint64_t>();
      parent_hash[seed] = run["history_hash"];
      continue;
    }
    const json& branch = run["branch"];
    EXPECT_EQ(branch["mark"], "stale-write-refused");
    // A branch forks nothing (docs/reports.md: absent when 0): the parent's count is not its own.
    EXPECT_FALSE(run.contains("branch_points")) << run.dump();
    const auto at = std::make_pair(seed, branch["event"].get<std::uint64_t>());
    numbers[at].insert(branch["number"].get<std::uint64_t>());
    hashes[at].insert(run["history_hash"].get<std::string>());
    EXPECT_EQ(run["status"], "pass") << run.dump();
    // The branch point itself is the parent's: a branch counts only what came after it.
    EXPECT_LT(branch["marks_after"].value("stale-write-refused", 0),
              run["marks"]["stale-write-refused"].get<int>())
        << run.dump();
    branches.push_back(run);
  }
  ASSERT_GE(points, 3u) << "every seed of kleppmann-fencing refuses a stale write";
  EXPECT_EQ(branches.size(), kBranches * points);
  EXPECT_EQ(points, numbers.size());
  for (const auto& [at, seen] : numbers) {
    EXPECT_EQ(seen, (std::set<std::uint64_t>{1, 2, 3})) << "seed " << at.first;
    EXPECT_EQ(hashes.at(at).size(), static_cast<std::size_t>(kBranches))
        << "the branches of one hit have distinct histories (seed " << at.first << ")";
    EXPECT_FALSE(hashes.at(at).contains(parent_hash.at(at.first)));
  }
  EXPECT_EQ(read_lines(path("out/run_times.jsonl")).size(), branches.size() + 3);

  // Replayed without fork, from the file and from the command line: the forked run's hash.
  for (std::size_t i = 0; i < branches.size(); i += 2) {
    const json& run = branches[i];
    const std::string replay = run["branch"]["replay"];
    ASSERT_FALSE(replay.empty()) << run.dump();
    const json file = read_json(path("out/" + replay));
    EXPECT_EQ(file["version"], 4);
    EXPECT_EQ(file["branch"]["number"], run["branch"]["number"]);
    EXPECT_EQ(file["expected_history_hash"], run["history_hash"]);
    const Result replayed = fencesim("replay --json out/" + replay);
    ASSERT_EQ(replayed.code, 0) << replayed.out << replayed.err;
    EXPECT_EQ(json::parse(replayed.out)["history_hash"], run["history_hash"]) << replayed.out;
    EXPECT_EQ(json::parse(replayed.out)["replay"]["matches"], true) << replayed.out;
    const Result rerun = fencesim(
        "run --json --scenario kleppmann-fencing --strategy random --seed " +
        std::to_string(run["seed"].get<std::uint64_t>()) + " --branch stale-write-refused:" +
        std::to_string(run["branch"]["event"].get<std::uint64_t>()) + ":" +
        std::to_string(run["branch"]["number"].get<std::uint64_t>()));
    ASSERT_EQ(rerun.code, 0) << rerun.out << rerun.err;
    EXPECT_EQ(json::parse(rerun.out)["history_hash"], run["history_hash"]) << rerun.out;
  }

  // The summary prints every mark's hits per CPU-second, branches included.
  EXPECT_NE(result.out.find("mark hits per CPU-second (" + std::to_string(branches.size()) +
                            " branch runs):"),
            std::string::npos)
      << result.out;
  const json summary = read_json(path("out/summary.json"));
  EXPECT_EQ(summary["totals"]["branch_runs"], branches.size());
  EXPECT_GT(summary["totals"]["mark_hits_per_cpu_second"]["stale-write-refused"], 0.0);
}

TEST_F(BranchSweepTest, ABranchIsTheSameRunEveryTime) {
  const std::string args =
      "sweep --scenario kleppmann-fencing --seeds 2..2 --strategy random --jobs 1 "
      "--branch-at stale-write-refused --branches 2 --out ";
  ASSERT_EQ(fencesim(args + "a").code, 0);
  ASSERT_EQ(fencesim(args + "b").code, 0);
  std::vector<std::string> a;
  std::vector<std::string> b;
  for (const json& run : runs(path("a"))) a.push_back(run["history_hash"]);
  for (const json& run : runs(path("b"))) b.push_back(run["history_hash"]);
  EXPECT_EQ(a.size(), 3u);
  EXPECT_EQ(a, b);
}

// Without --branches, each hit forks 8 branches, as the help says (red team 34b: a default of 1
// passed every test, each of which names its --branches).
TEST_F(BranchSweepTest, WithoutBranchesEachHitForksEight) {
  const Result result = fencesim(
      "sweep --scenario kleppmann-fencing --seeds 2..2 --strategy random --jobs 1 "
      "--branch-at stale-write-refused --out out");
  ASSERT_EQ(result.code, 0) << result.out << result.err;
  std::uint64_t points = 0;
  std::uint64_t branch_runs = 0;
  for (const json& run : runs(path("out"))) {
    if (run.contains("branch")) {
      ++branch_runs;
    } else {
      points += run["branch_points"].get<std::uint64_t>();
    }
  }
  ASSERT_GT(points, 0u) << "seed 2 refuses a stale write";
  EXPECT_EQ(branch_runs, 8 * points);
}

// A branch that fails (every sink accepts stale tokens, and seed 1's takeover comes before the
// stale write) is a failure of its own: its record in runs.jsonl, its replay file in failures/
// under its branch point's name (not its parent's, which the parent's own failure keeps), noted
// as kept but not shrunk or drawn, kept in the corpus under that name too, and replaying to its
// forked run's hash. Shrinking the failing parent forks no branches of its own: before, each
// shrinking run forked two, and each fork went on shrinking and answered for the parent (seed 1
// stood 21 times in runs.jsonl). A merge keeps each branch record whole (the marks it reached after
// its point too), and names a branch run it finds twice by its branch point.
TEST_F(BranchSweepTest, AFailingBranchKeepsItsOwnReplayFileBesideItsParents) {
  const Result result = fencesim(
      "sweep --scenario kleppmann-fencing --seeds 1..1 --strategy random --jobs 1 "
      "--sink-double accept-stale --branch-at takeover-mid-step --branches 2 --out out "
      "--corpus corpus");
  ASSERT_EQ(result.code, 1) << result.out << result.err;
  const std::vector<json> all = runs(path("out"));
  ASSERT_EQ(all.size(), 3u) << "the run and its two branches, each once";
  std::string parent_file;
  std::vector<json> branches;
  for (const json& run : all) {
    EXPECT_EQ(run["status"], "violation") << run.dump();
    if (run.contains("branch")) {
      branches.push_back(run);
    } else {
      EXPECT_EQ(run["branch_points"], 1) << run.dump();
      parent_file = run["failure"]["replay_file"];
    }
  }
  EXPECT_EQ(parent_file, "failures/kleppmann-fencing-random-1.replay.json");
  ASSERT_EQ(branches.size(), 2u);
  std::set<std::string> files;
  for (const json& run : branches) {
    const json& branch = run["branch"];
    const std::string name = "kleppmann-fencing-random-1-takeover-mid-step-e" +
                             branch["event"].dump() + "-b" + branch["number"].dump();
    const std::string replay = "failures/" + name + ".replay.json";
    EXPECT_EQ(branch["replay"], replay) << run.dump();
    EXPECT_EQ(run["failure"]["replay_file"], replay) << run.dump();
    EXPECT_EQ(run["failure"]["note"], "a branch: its replay file is kept, not shrunk or drawn");
    EXPECT_TRUE(run["failure"]["shrunk_replay_file"].is_null()) << run.dump();
    EXPECT_NE(result.out.find("fencesim replay out/" + replay + "\n"), std::string::npos)
        << result.out;
    EXPECT_TRUE(fs::is_regular_file(path("corpus/" + name + "-sink-monotonicity.replay.json")))
        << name;
    files.insert(replay);
    const Result replayed = fencesim("replay --json out/" + replay);
    EXPECT_EQ(replayed.code, 1) << replayed.out << replayed.err;
    const json answer = json::parse(replayed.out);
    EXPECT_EQ(answer["replay"]["matches"], true) << replayed.out;
    EXPECT_EQ(answer["history_hash"], run["history_hash"]) << replayed.out;
    EXPECT_EQ(answer["status"], "violation") << replayed.out;
  }
  EXPECT_EQ(files.size(), 2u);
  EXPECT_FALSE(files.contains(parent_file));
  EXPECT_TRUE(fs::is_regular_file(path("out/" + parent_file)));

  // The folder merges as the one shard it is; a branch run in it twice is named by its point.
  const Result merged = fencesim("merge --out merged out");
  EXPECT_EQ(merged.code, 1) << merged.out << merged.err;
  // Its branch records read back and written again whole, with what each reached after its point.
  std::vector<json> merged_branches;
  for (const json& run : runs(path("merged"))) {
    if (run.contains("branch")) merged_branches.push_back(run["branch"]);
  }
  ASSERT_EQ(merged_branches.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(merged_branches[i], branches[i]["branch"]);
    EXPECT_FALSE(merged_branches[i]["marks_after"].empty()) << merged_branches[i].dump();
  }
  write("out/runs.jsonl", read_text(path("out/runs.jsonl")) + branches[0].dump() + "\n");
  const json& at = branches[0]["branch"];
  expect_usage_error(
      fencesim("merge --out merged-twice out"),
      "merge: kleppmann-fencing random seed 1 branch takeover-mid-step:" + at["event"].dump() +
          ":" + at["number"].dump() + " is in two shards (again in 'out')");
}

// A branch whose process dies before it answers is lost, not missing: its worker writes a
// harness-error record for it, with its branch point, and the sweep says how to run it again (the
// parent's seed to that branch point, which `fencesim run --branch` does). The other branches of
// the point and the parent stand.
TEST_F(BranchSweepTest, ABranchThatDiesBeforeItAnswersIsReportedLost) {
  const Result result = fencesim(
      "sweep --scenario kleppmann-fencing --seeds 1..1 --strategy random --jobs 1 --out out "
      "--branch-at stale-write-refused --branches 3",
      "FENCESIM_TEST_CRASH_SEED=1 FENCESIM_TEST_CRASH_KIND=segv-in-second-branch ");
  EXPECT_EQ(result.code, 5) << result.out << result.err;
  std::map<std::uint64_t, json> branches;  // by number
  std::uint64_t parents = 0;
  for (const json& run : runs(path("out"))) {
    if (!run.contains("branch")) {
      ++parents;
      EXPECT_EQ(run["status"], "pass") << run.dump();
      continue;
    }
    branches[run["branch"]["number"].get<std::uint64_t>()] = run;
  }
  EXPECT_EQ(parents, 1u);
  ASSERT_EQ(branches.size(), 3u);
  EXPECT_EQ(branches.at(1)["status"], "pass");
  EXPECT_EQ(branches.at(3)["status"], "pass");
  const json& lost = branches.at(2);
  EXPECT_EQ(lost["status"], "harness-error") << lost.dump();
  EXPECT_NE(lost["detail"].get<std::string>().find("the branch's process killed by signal 11"),
            std::string::npos)
      << lost.dump();
  EXPECT_EQ(lost["branch"]["mark"], "stale-write-refused");
  EXPECT_EQ(lost["branch"]["event"], branches.at(1)["branch"]["event"]) << "the same point";
  const std::string again =
      "fencesim run --scenario kleppmann-fencing --seed 1 --strategy random "
      "--branch stale-write-refused:" +
      lost["branch"]["event"].dump() + ":2";
  EXPECT_NE(result.out.find(again + "\n"), std::string::npos) << result.out;
  // That command runs the lost branch: a branch of seed 1 at that point, which passes.
  const Result rerun = fencesim(again.substr(std::string("fencesim ").size()) + " --json");
  EXPECT_EQ(rerun.code, 0) << rerun.out << rerun.err;
}

TEST_F(BranchSweepTest, BadBranchOptionsExit2WithOneLine) {
  const std::string sweep = "sweep --scenario kleppmann-fencing --seeds 1..2 --out out ";
  const Result unknown = fencesim(sweep + "--branch-at stale-write-refused,no-such-mark");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_EQ(unknown.out, "");
  EXPECT_TRUE(
      unknown.err.starts_with("fencesim: --branch-at: unknown mark 'no-such-mark' (the "
                              "history's marks: cancel-during-confirm, "))
      << unknown.err;
  EXPECT_EQ(unknown.err.find('\n'), unknown.err.size() - 1) << "one line";
  expect_usage_error(
      fencesim(sweep + "--branch-at stale-write-refused,,lease-yielded"),
      "--branch-at: expected MARK[,MARK...], got 'stale-write-refused,,lease-yielded'");
  expect_usage_error(fencesim(sweep + "--branch-at lease-yielded,lease-yielded"),
                     "--branch-at: 'lease-yielded' is given twice");
  expect_usage_error(fencesim(sweep + "--branch-at lease-yielded --branches 0"),
                     "--branches: expected 1..64, got '0'");
  expect_usage_error(fencesim(sweep + "--branches 4"),
                     "--branches: give --branch-at too (the marks to branch at)");
  expect_usage_error(
      fencesim("run --scenario kleppmann-fencing --seed 1 --branch stale-write-refused:7"),
      "--branch: expected MARK:EVENT:N, got 'stale-write-refused:7'");
  // One mark, not a list: a list named its first mark (by name) and ended as a harness error.
  expect_usage_error(
      fencesim("run --scenario kleppmann-fencing --seed 1 --branch "
               "stale-write-refused,lease-yielded:5:1"),
      "--branch: expected MARK:EVENT:N, got 'stale-write-refused,lease-yielded:5:1'");
  EXPECT_FALSE(fs::exists(path("out/runs.jsonl")));
}

}  // namespace
}  // namespace fencesim::cli::testing::branch_sweep_test
