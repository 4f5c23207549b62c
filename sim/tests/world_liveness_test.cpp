// The world's liveness rule (World::all_trees_completed): a tree has ended once its end is recorded
// and its placement is finished. A completed tree left pending in the queue would be taken again
// by every poll forever (red team round 9, bug 09: only the completing pass finished a tree, so a
// crash between the completion commit and the finish left it queued); the run must say so.
#include <gtest/gtest.h>

#include "runtime/lease_repository.h"
#include "sim/world.h"

namespace fencesim::sim {
namespace {

const runtime::LeaseKey kTree{"tenant-1", "order-1"};

// A world with no instance: the tree's end is written into the stores directly, as a holder
// would, before the run.
RunOutcome outcome_of(bool completed, bool finished) {
  WorldOptions options;
  options.seed = 1;
  options.safety_phase_ns = runtime::kSecond;
  options.liveness_budget_ns = 5 * runtime::kSecond;
  World world(options);
  world.add_lease_store();
  world.submit(kTree, "order");
  const runtime::TakeResult taken =
      world.lease_table().take(kTree, "instance-1", 30 * runtime::kSecond);
  EXPECT_EQ(taken.status, runtime::TakeStatus::kTaken);
  if (completed) {
    EXPECT_EQ(world.checkpoints().commit_tree(kTree, taken.lease.token).status,
              runtime::CommitStatus::kCommitted);
  }
  if (finished) world.queue().finish(kTree);
  return world.run().outcome;
}

TEST(WorldLiveness, ATreeHasEndedOnlyOnceItsCompletionIsRecordedAndItsPlacementFinished) {
  EXPECT_EQ(outcome_of(true, true), RunOutcome::kCompleted);
  EXPECT_EQ(outcome_of(true, false), RunOutcome::kLiveness);  // completed, still queued
  EXPECT_EQ(outcome_of(false, false), RunOutcome::kLiveness);
}

}  // namespace
}  // namespace fencesim::sim
