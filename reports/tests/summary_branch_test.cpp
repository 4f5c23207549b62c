// A branching sweep's summary (--branch-at, cli/sweep_branch.h): a branch repeats its parent's run
// up to its branch point, so what happened before that point is counted once, in the parent's
// record. A summary that counted a branch's whole record would show a rare mark reached (and a
// fault kind acting) as often as the sweep chose to branch, not as often as the scenario reached
// it: the very figure branching is measured by (docs/benchmarks.md) would be inflated by itself.
#include <gtest/gtest.h>

#include "reports/run_record.h"
#include "reports/summary.h"
#include "reports/sweep_config.h"

namespace fencesim::reports::summary_branch_test {
namespace {

using nlohmann::ordered_json;

SweepManifest manifest() {
  SweepManifest m;
  m.fencesim_version = "0.1.0";
  m.configuration.scenarios = {
      SweptScenario{"kleppmann-fencing", "the story", {"stale-write-refused"}}};
  m.configuration.seeds_first = 1;
  m.configuration.seeds_last = 1;
  m.configuration.strategies = {"random"};
  m.shard_indices = {0};
  m.completed = true;
  m.wall_seconds = 1.0;
  return m;
}

RunRecord parent() {
  RunRecord record;
  record.scenario = "kleppmann-fencing";
  record.strategy = "random";
  record.seed = 1;
  record.status = "pass";
  record.history_hash = "00000000000000aa";
  // Two refusals: the first at event 40, where the sweep branched.
  record.marks = {{"stale-write-refused", 2}, {"lease-yielded", 1}};
  record.fault_effects = {{"stall", properties::FaultKindEffect{1, 3, 2}}};
  record.branch_points = 1;
  return record;
}

// A branch forked at the parent's first refusal (event 40): its record counts the shared prefix
// (the refusal at the branch point included) and what it reached after, on its own: one more
// refusal and one yield.
RunRecord branch(std::uint64_t number, const std::string& hash) {
  RunRecord record = parent();
  record.history_hash = hash;
  record.marks = {{"stale-write-refused", 2}, {"lease-yielded", 1}};
  record.branch_points = 0;
  record.branch = BranchRecord{properties::BranchPoint{"stale-write-refused", 40, number},
                               {{"stale-write-refused", 1}, {"lease-yielded", 1}},
                               ""};
  return record;
}

std::vector<RunRecord> branched_sweep() {
  std::vector<RunRecord> records = {parent(), branch(1, "00000000000000b1"),
                                    branch(2, "00000000000000b2")};
  sort_records(records);
  return records;
}

// A seed's branches come after its own run, by branch point and then by number, whatever order the
// workers or the shards gave them: every file a sweep or a merge writes lists them so (red team
// 37c-03 left the number out of the order: sibling branches kept their arrival order, and two
// merges of one sweep could differ).
TEST(SummaryOfBranches, RecordsSortByBranchPointAndNumber) {
  std::vector<RunRecord> records = {branch(3, "00000000000000b3"), branch(1, "00000000000000b1"),
                                    parent(), branch(2, "00000000000000b2")};
  sort_records(records);
  ASSERT_EQ(records.size(), 4u);
  EXPECT_FALSE(records[0].branch.has_value()) << "the parent's run first";
  for (std::uint64_t number = 1; number <= 3; ++number) {
    ASSERT_TRUE(records[number].branch.has_value());
    EXPECT_EQ(records[number].branch->at.number, number);
  }
}

TEST(SummaryOfBranches, AMarkIsCountedOnceBeforeTheBranchPointAndPerBranchAfterIt) {
  const ordered_json summary = sweep_summary(manifest(), branched_sweep(), {});
  // The parent's 2 refusals and 1 yield, and each branch's 1 refusal and 1 yield after event 40.
  const ordered_json& story = summary["scenarios"][0];
  EXPECT_EQ(story["runs"], 3);
  EXPECT_EQ(story["marks"]["stale-write-refused"], 4) << story["marks"].dump();
  EXPECT_EQ(story["marks"]["lease-yielded"], 3) << story["marks"].dump();
  // The mark hits per CPU-second (what branching is judged by) count the same hits.
  const ordered_json& totals = summary["totals"];
  EXPECT_EQ(totals["branch_runs"], 2);
  EXPECT_EQ(totals["mark_hits"]["stale-write-refused"], 4) << totals["mark_hits"].dump();
  EXPECT_EQ(totals["mark_hits"]["lease-yielded"], 3) << totals["mark_hits"].dump();
}

TEST(SummaryOfBranches, WhatTheFaultsDidIsTheParentsAlone) {
  // The faults fired before the branch point (a branch is reseeded there; the plan is its
  // parent's): counted once, however many branches repeat them.
  const ordered_json summary = sweep_summary(manifest(), branched_sweep(), {});
  EXPECT_EQ(summary["scenarios"][0]["fault_effects"]["stall"],
            (ordered_json{{"fired", 1}, {"could_act", 3}, {"acted", 2}}))
      << summary["scenarios"][0]["fault_effects"].dump();
}

}  // namespace
}  // namespace fencesim::reports::summary_branch_test
