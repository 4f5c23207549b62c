// A sweep's branch options (--branch-at, --branches; docs/explore.md) are part of the
// configuration sweep.json records: a branching shard's runs.jsonl holds branch runs a plain
// shard's never has, so `fencesim merge` refuses to join a branching shard with a plain one, or
// shards that branch at other marks or into another number of branches, in one line naming the
// option (exit 2, nothing written). A sweep.json written before the options were recorded reads
// as a sweep that does not branch.
#include <set>

#include "cli/tests/sweep_fixture.h"

namespace fencesim::cli::testing::merge_branch_test {
namespace {

using nlohmann::json;

// Every seed of kleppmann-fencing refuses a stale write (branch_sweep_test), so the branching
// shard does branch; two seeds, one a shard, keep it to a few runs.
const std::string kSweep =
    "sweep --scenario kleppmann-fencing --seeds 1..2 --strategy random --jobs 1";
const std::string kBranching = " --branch-at stale-write-refused --branches 2";

class MergeBranchTest : public BinaryTest {
 protected:
  void sweep(const std::string& options, const std::string& out) {
    const Result result = fencesim(kSweep + options + " --out " + out);
    ASSERT_EQ(result.code, 0) << result.out << result.err;
  }
};

TEST_F(MergeBranchTest, ABranchingShardAndAPlainOneAreDifferentSweeps) {
  sweep(" --shard 0/2" + kBranching, "s0");
  sweep(" --shard 1/2", "s1");
  const json branching = read_json(path("s0/sweep.json"))["configuration"];
  EXPECT_EQ(branching.value("branch_at", json()), json::array({"stale-write-refused"}));
  EXPECT_EQ(branching.value("branches", json()), 2);
  const json plain = read_json(path("s1/sweep.json"))["configuration"];
  EXPECT_EQ(plain.value("branch_at", json()), json::array());
  EXPECT_EQ(plain.value("branches", json()), 0);
  // The branching shard did branch: a merge would count its branch runs as the sweep's.
  bool has_branch_run = false;
  for (const json& run : runs(path("s0"))) has_branch_run |= run.contains("branch");
  ASSERT_TRUE(has_branch_run);

  expect_usage_error(fencesim("merge --out merged s0 s1"),
                     "merge: 's0' and 's1' are different sweeps (branch-at differ)");
  expect_usage_error(fencesim("merge --out merged s1 s0"),
                     "merge: 's1' and 's0' are different sweeps (branch-at differ)");
  EXPECT_FALSE(fs::exists(path("merged")));
}

TEST_F(MergeBranchTest, ShardsBranchingIntoAnotherNumberOfBranchesAreDifferentSweeps) {
  sweep(" --shard 0/2" + kBranching, "s0");
  sweep(" --shard 1/2 --branch-at stale-write-refused --branches 3", "s1");
  expect_usage_error(fencesim("merge --out merged s0 s1"),
                     "merge: 's0' and 's1' are different sweeps (branches differ)");
  EXPECT_FALSE(fs::exists(path("merged")));
}

// Shards that branched alike merge (before, every branching shard was refused: its branch runs
// share their parent's seed, which the merge took for a run given twice), and so do a plain
// shard and one whose sweep.json predates the fields (read as not branching).
TEST_F(MergeBranchTest, ShardsThatBranchAlikeMergeAndAnOldPlainShardIsPlain) {
  sweep(" --shard 0/2" + kBranching, "b0");
  sweep(" --shard 1/2" + kBranching, "b1");
  const Result branched = fencesim("merge --out merged b0 b1");
  ASSERT_EQ(branched.code, 0) << branched.out << branched.err;
  EXPECT_EQ(read_json(path("merged/sweep.json"))["configuration"]["branches"], 2);
  // A branch shares its parent's seed and is a run of its own: every run of both shards is there,
  // with its branch replay file (branches/), which replays from the merged folder.
  const std::vector<json> merged = runs(path("merged"));
  EXPECT_EQ(merged.size(), runs(path("b0")).size() + runs(path("b1")).size());
  // Each branch as its shard recorded it, marks_after included (read back and written again).
  std::set<std::string> shard_branches;
  for (const std::string shard : {"b0", "b1"}) {
    for (const json& run : runs(path(shard))) {
      if (run.contains("branch")) shard_branches.insert(run["seed"].dump() + run["branch"].dump());
    }
  }
  std::set<std::string> merged_branches;
  std::string replay;
  for (const json& run : merged) {
    if (!run.contains("branch")) continue;
    merged_branches.insert(run["seed"].dump() + run["branch"].dump());
    replay = run["branch"]["replay"];
    EXPECT_TRUE(fs::is_regular_file(path("merged/" + replay))) << replay;
  }
  ASSERT_FALSE(replay.empty());
  EXPECT_EQ(merged_branches, shard_branches);
  const Result replayed = fencesim("replay merged/" + replay);
  EXPECT_EQ(replayed.code, 0) << replayed.out << replayed.err;

  sweep(" --shard 0/2", "p0");
  sweep(" --shard 1/2", "p1");
  forget_branch_options("p1");
  const Result plain = fencesim("merge --out merged-plain p0 p1");
  EXPECT_EQ(plain.code, 0) << plain.out << plain.err;
  expect_usage_error(fencesim("merge --out merged-mixed b0 p1"),
                     "merge: 'b0' and 'p1' are different sweeps (branch-at differ)");
}

// A branching shard whose sweep.json predates the branch options reads as plain: the comparison of
// configurations would join it with a plain shard, one summary counting its branch runs as the
// sweep's. Its runs.jsonl says what its sweep.json cannot: it holds branch runs. Refused, since
// how it branched is not known.
TEST_F(MergeBranchTest, AnOldBranchingShardIsRefusedNotTakenForAPlainOne) {
  sweep(" --shard 0/2" + kBranching, "b0");
  sweep(" --shard 1/2", "p1");
  forget_branch_options("b0");
  json first;
  for (const json& run : runs(path("b0"))) {
    if (run.contains("branch")) {
      first = run;
      break;
    }
  }
  ASSERT_TRUE(first.is_object());
  const std::string line =
      "merge: 'b0' holds branch runs (kleppmann-fencing seed " + first["seed"].dump() + " branch " +
      first["branch"]["mark"].get<std::string>() + ":" + first["branch"]["event"].dump() + ":" +
      first["branch"]["number"].dump() +
      ") but its sweep.json records no --branch-at (written before the branch options were): how "
      "it branched is not known, so sweep it again";
  expect_usage_error(fencesim("merge --out merged b0 p1"), line);
  expect_usage_error(fencesim("merge --out merged p1 b0"), line);
  EXPECT_FALSE(fs::exists(path("merged")));
}

}  // namespace
}  // namespace fencesim::cli::testing::merge_branch_test
