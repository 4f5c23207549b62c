// The world's liveness rule (World::all_trees_completed): a tree has ended once its end is recorded
// and its placement is finished. A completed tree left pending in the queue would be taken again
// by every poll forever (red team round 9, bug 09: only the completing pass finished a tree, so a
// crash between the completion commit and the finish left it queued); the run must say so.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/lease_repository.h"
#include "runtime/placement_queue.h"
#include "runtime/scope_key.h"
#include "sim/node_kind.h"
#include "sim/restartable_lease_store.h"
#include "sim/waiter.h"
#include "sim/world.h"

namespace fencesim::sim::world_liveness_test {
namespace {

const runtime::LeaseKey kTree{"tenant-1", "order-1"};

// A short run: a second of safety phase, five of liveness budget.
WorldOptions short_run() {
  WorldOptions options;
  options.seed = 1;
  options.safety_phase_ns = runtime::kSecond;
  options.liveness_budget_ns = 5 * runtime::kSecond;
  return options;
}

// A world with no instance and one submitted root, kTree: a test writes the trees' ends into the
// stores directly, as a holder would, before the run.
std::unique_ptr<World> store_only_world() {
  auto world = std::make_unique<World>(short_run());
  world->add_lease_store();
  world->submit(kTree, "order");
  return world;
}

// Records `key`'s completion under a lease taken for it, as its holder's last pass would.
void complete(World& world, const runtime::LeaseKey& key) {
  const runtime::TakeResult taken =
      world.lease_table().take(key, "instance-1", 30 * runtime::kSecond);
  EXPECT_EQ(taken.status, runtime::TakeStatus::kTaken);
  EXPECT_EQ(world.checkpoints().commit_tree(key, taken.lease.token).status,
            runtime::CommitStatus::kCommitted);
}

RunOutcome outcome_of(bool completed, bool finished) {
  const std::unique_ptr<World> world = store_only_world();
  if (completed) complete(*world, kTree);
  if (finished) world->queue().finish(kTree);
  return world->run().outcome;
}

TEST(WorldLiveness, ATreeHasEndedOnlyOnceItsCompletionIsRecordedAndItsPlacementFinished) {
  EXPECT_EQ(outcome_of(true, true), RunOutcome::kCompleted);
  EXPECT_EQ(outcome_of(true, false), RunOutcome::kLiveness);  // completed, still queued
  EXPECT_EQ(outcome_of(false, false), RunOutcome::kLiveness);
}

// A root a client cancelled (#360) has ended once a holder ended it: the cancel recorded and the
// placement finished. A cancel recorded but never acted on is work not done (a runtime that never
// reads its cancels would otherwise pass every run).
RunOutcome outcome_of_cancelled(bool finished) {
  const std::unique_ptr<World> world = store_only_world();
  EXPECT_EQ(world->checkpoints().request_cancel(kTree), runtime::CancelStatus::kRecorded);
  if (finished) world->queue().finish(kTree);
  return world->run().outcome;
}

TEST(WorldLiveness, ACancelledRootHasEndedOnlyOnceItsPlacementIsFinished) {
  EXPECT_EQ(outcome_of_cancelled(true), RunOutcome::kCompleted);
  EXPECT_EQ(outcome_of_cancelled(false), RunOutcome::kLiveness);
}

// Every placed tree is judged, not only the submitted roots: a tree placed during the run (as an
// AnyInstance child is) that never ends, or whose end is recorded while its placement stays
// pending, is work nobody will do. The root itself has ended.
RunOutcome outcome_with_a_placed_tree(bool completed) {
  const runtime::LeaseKey placed{"tenant-1", "order-2"};
  const std::unique_ptr<World> world = store_only_world();
  complete(*world, kTree);
  world->queue().finish(kTree);
  EXPECT_TRUE(world->client_place(placed, "order"));  // recorded: the world judges it
  if (completed) complete(*world, placed);
  return world->run().outcome;
}

TEST(WorldLiveness, APlacedTreeThatNeverEndsIsWorkNotDone) {
  EXPECT_EQ(outcome_with_a_placed_tree(false), RunOutcome::kLiveness);
}

TEST(WorldLiveness, APlacedTreeCompletedWithItsPlacementPendingHasNotEnded) {
  // Its placement's finish was never recorded by the queue: completed is not ended.
  EXPECT_EQ(outcome_with_a_placed_tree(true), RunOutcome::kLiveness);
}

// A client's placement during the run is recorded with the queue's verdict: a root under an
// AnyInstance child's reserved key is refused, also once that child is on the queue (red team
// The state a liveness failure names a tree by (its signature's term, which groups failures and
// tells the shrinker a run stuck the same way): a root never placed (its placement comes after the
// run's end), one whose placement was finished with no completion and no cancel, each in the same
// fixed words.
TEST(WorldLiveness, AStuckTreeIsNamedByItsPlacementCheckpointAndLease) {
  {
    World world(short_run());
    world.add_lease_store();
    world.submit(kTree, "order", 60 * runtime::kSecond);  // after the run's end
    const RunSummary summary = world.run();
    EXPECT_EQ(summary.outcome, RunOutcome::kLiveness);
    EXPECT_EQ(summary.stuck,
              (std::vector<std::string>{"tree: never placed, no step checkpointed, no pass began "
                                        "since the heal, lease never taken, no event"}));
  }
  {
    const std::unique_ptr<World> world = store_only_world();
    world->queue().finish(kTree);  // finished, never completed nor cancelled
    const RunSummary summary = world->run();
    EXPECT_EQ(summary.outcome, RunOutcome::kLiveness);
    EXPECT_EQ(summary.stuck, (std::vector<std::string>{
                                 "tree: placement finished, no step checkpointed, no pass began "
                                 "since the heal, lease never taken, no event"}));
  }
}

// A stuck tree's term ends with its own last event and the kind of node that made it, never
// another tree's (red team 43a-17: the last runtime event of any tree was named, so two different
// hangs grouped as one, or one hang split by what else happened last). Two trees stuck the same
// way, each with a last event of its own at a node of its own kind.
TEST(WorldLiveness, AStuckTreeIsNamedByItsOwnLastEvent) {
  const runtime::LeaseKey other{"tenant-1", "order-2"};
  World world(short_run());
  const NodeId store = world.add_lease_store();
  world.submit(kTree, "order");
  world.submit(other, "order");
  world.queue().finish(kTree);
  world.queue().finish(other);
  const auto adopt = [&world](NodeId node, runtime::EventKind kind, const runtime::LeaseKey& key) {
    HistoryEvent e;
    e.world = WorldEventKind::kRuntime;
    e.node = node;
    e.runtime = RuntimeRecord(runtime::RuntimeEvent{kind, "instance-1", key, "", 1, "", ""});
    world.adopt_event(std::move(e));
  };
  adopt(store, runtime::EventKind::kLeaseTaken, kTree);
  adopt(kWorldNode, runtime::EventKind::kStepStarted, other);
  const RunSummary summary = world.run();
  EXPECT_EQ(summary.outcome, RunOutcome::kLiveness);
  const std::string stuck = "tree: placement finished, no step checkpointed, no pass began since "
                            "the heal, lease never taken, ";
  EXPECT_EQ(summary.stuck, (std::vector<std::string>{stuck + "last lease-taken at store",
                                                     stuck + "last step-started at world"}));
}

// A liveness term names a node by its kind, in fixed words that tell a sink from a store (red team
// 36a-60 called a sink a store: a hang in a sink's handler would then group with one in a store's).
TEST(WorldLiveness, EachNodeKindHasAWordOfItsOwn) {
  EXPECT_EQ(kind_word(NodeKind::kInstance), "instance");
  EXPECT_EQ(kind_word(NodeKind::kStore), "store");
  EXPECT_EQ(kind_word(NodeKind::kSink), "sink");
  EXPECT_EQ(kind_word(NodeKind::kWorld), "world");
}

// A world whose fibers all wait on what nobody will send, with no timer left, is deadlocked: the
// run ends at once as a liveness failure whose terms name each stuck fiber by its role, its node's
// kind and what it waits on (never an id), sorted: two deadlocks on the same waits group as one.
TEST(WorldLiveness, ADeadlockIsALivenessFailureNamingEachStuckFiber) {
  World world(short_run());
  const NodeId store = world.add_lease_store();
  Waiter nobody_sends("a wake-up nobody sends");
  Waiter unnamed;
  Scheduler& scheduler = world.scheduler();
  scheduler.spawn(store, "watch tenant-1/order-1", [&] { scheduler.block(nobody_sends); });
  scheduler.spawn(kWorldNode, "tree tenant-1/order-1", [&] { scheduler.block(unnamed); });
  const RunSummary summary = world.run();
  EXPECT_EQ(summary.outcome, RunOutcome::kLiveness);
  EXPECT_EQ(summary.detail.rfind("deadlock: ", 0), 0u) << summary.detail;
  EXPECT_EQ(summary.stuck, (std::vector<std::string>{
                               "tree (world) waits on an unnamed Waiter",
                               "watch (store) waits on a wake-up nobody sends"}));
  EXPECT_LT(summary.virtual_ns, short_run().safety_phase_ns);  // at once, not at the time limit
}

// An exception out of a simulated fiber (a bug of the harness or of a workload's own fiber) ends
// the run as a harness error that says which fiber threw what: never a liveness failure, never a
// crash of the process.
TEST(WorldLiveness, AnExceptionOutOfAFiberIsAHarnessError) {
  const std::unique_ptr<World> world = store_only_world();
  world->scheduler().spawn(kWorldNode, "probe", [&] {
    world->scheduler().sleep_for(runtime::kMillisecond);
    throw std::runtime_error("the probe's own");
  });
  const RunSummary summary = world->run();
  EXPECT_EQ(summary.outcome, RunOutcome::kHarnessError);
  EXPECT_NE(summary.detail.find("fiber 'probe'"), std::string::npos) << summary.detail;
  EXPECT_NE(summary.detail.find("the probe's own"), std::string::npos) << summary.detail;
  EXPECT_TRUE(summary.stuck.empty());
}

// round 9, bug 03: the queue deduplicated before it checked), and placed nothing.
TEST(WorldClientPlace, ARootUnderAChildsKeyIsRefusedAndRecordedAsRefused) {
  WorldOptions options;
  options.seed = 1;
  World world(options);
  world.add_lease_store();
  const runtime::LeaseKey child{"tenant-1",
                                std::string(runtime::kChildExecutionPrefix) + "order-1:g%2Fx"};
  world.queue().place(child, "remote", kTree);
  EXPECT_FALSE(world.client_place(child, "remote"));
  EXPECT_TRUE(world.client_place(runtime::LeaseKey{"tenant-1", "order-2"}, "order"));
  std::vector<std::string> outcomes;
  for (const HistoryEvent& e : world.history().events()) {
    if (e.world == WorldEventKind::kStoreCall && e.store && e.store->op == StoreOp::kPlace)
      outcomes.push_back(e.store->outcome);
  }
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_TRUE(outcomes[0].starts_with("refused: ")) << outcomes[0];
  EXPECT_EQ(outcomes[1], "ok");
  EXPECT_FALSE(world.queue().find(child)->parent == std::nullopt);  // still the child's placement
}

}  // namespace
}  // namespace fencesim::sim::world_liveness_test
