// Where a tree is, as TreeWatch reads its history (the moment a withdrawal marks): a holder whose
// pass was abandoned has nothing in flight, and a refused checkpoint is no longer being written.
#include "scenarios/tree_watch.h"

#include <gtest/gtest.h>

#include <string>

namespace fencesim::scenarios::tree_watch_test {
namespace {

using runtime::EventKind;

const runtime::LeaseKey kTree{"tenant-1", "order-1"};

void record(sim::World& world, EventKind kind, const std::string& holder,
            const std::string& step = "") {
  runtime::RuntimeEvent event{kind, holder, kTree, "", 1, step, "", 0};
  sim::HistoryEvent e;
  e.world = sim::WorldEventKind::kRuntime;
  e.runtime = sim::RuntimeRecord(event);
  world.adopt_event(std::move(e));
}

TEST(TreeWatch, AnAbandonedPassLeavesNoStepRunning) {
  sim::World world(sim::WorldOptions{});
  TreeWatch watch(world);
  record(world, EventKind::kTreeStarted, "instance-1");
  record(world, EventKind::kStepStarted, "instance-1", "pack");
  EXPECT_EQ(watch.moment(kTree, "pack"), "during-step");
  // The holder stopped its pass (its lease lost) with the step's end never recorded.
  record(world, EventKind::kTreeAbandoned, "instance-1");
  EXPECT_EQ(watch.moment(kTree, "pack"), "between-steps");
  record(world, EventKind::kTreeStarted, "instance-2");
  record(world, EventKind::kStepStarted, "instance-2", "ship");
  EXPECT_EQ(watch.moment(kTree, "pack"), "during-another-step");
}

TEST(TreeWatch, ARefusedCheckpointIsNoLongerInFlight) {
  sim::World world(sim::WorldOptions{});
  TreeWatch watch(world);
  record(world, EventKind::kTreeStarted, "instance-1");
  record(world, EventKind::kStepStarted, "instance-1", "pack");
  record(world, EventKind::kStepEnded, "instance-1", "pack");
  record(world, EventKind::kCheckpointSent, "instance-1", "pack");
  EXPECT_EQ(watch.moment(kTree, "ship"), "during-checkpoint");
  record(world, EventKind::kCheckpointRefused, "instance-1", "pack");
  EXPECT_EQ(watch.moment(kTree, "ship"), "between-steps");
  record(world, EventKind::kCheckpointSent, "instance-1", "pack");
  record(world, EventKind::kCheckpointCommitted, "instance-1", "pack");
  EXPECT_EQ(watch.moment(kTree, "ship"), "between-steps");
  record(world, EventKind::kTreeCompleted, "instance-1");
  EXPECT_EQ(watch.moment(kTree, "ship"), "after-end");
}

// Two lanes of one holder waiting on remote children at once is the overlap (the mark
// remote-waits-overlapped): one wait is not, two are, and the overlap ends with either wait; two
// holders waiting once each are not one holder's overlap.
TEST(TreeWatch, TwoRemoteWaitsOfOneHolderOverlap) {
  sim::World world(sim::WorldOptions{});
  TreeWatch watch(world);
  record(world, EventKind::kTreeStarted, "instance-1");
  record(world, EventKind::kRemoteWaitBegan, "instance-1", "left");
  EXPECT_FALSE(watch.remote_waits_overlap());
  record(world, EventKind::kRemoteWaitBegan, "instance-2", "right");
  EXPECT_FALSE(watch.remote_waits_overlap());
  record(world, EventKind::kRemoteWaitBegan, "instance-1", "right");
  EXPECT_TRUE(watch.remote_waits_overlap());
  record(world, EventKind::kRemoteWaitEnded, "instance-1", "left");
  EXPECT_FALSE(watch.remote_waits_overlap());
}

}  // namespace
}  // namespace fencesim::scenarios::tree_watch_test
