// World::await_moment: a step waits for a protocol moment of its own node's runtime (a renewal of
// its lease leaving) and goes on at that instant; with no such moment it goes on at its timeout.
// The renewal-racing workload (scenarios/renewal_race.h) rests on both.
#include <gtest/gtest.h>

#include <optional>

#include "runtime/execution_context.h"
#include "runtime/observer.h"
#include "sim/world.h"

namespace fencesim::sim::world_moments_test {
namespace {

using runtime::kSecond;

const runtime::LeaseKey kTree{"tenant-1", "order-1"};

struct Waited {
  bool came = false;
  std::int64_t began_ns = -1;
  std::int64_t returned_ns = -1;
};

// One instance runs one tree whose only step awaits `kind` of its lease (at most `timeout_ns`).
// Returns what the step saw and the true time of the instance's first `kind` event of the tree's
// lease, if any.
std::pair<Waited, std::optional<std::int64_t>> run_await(runtime::EventKind kind,
                                                         std::int64_t timeout_ns,
                                                         const runtime::LeaseKey& awaited = kTree) {
  WorldOptions options;
  options.seed = 7;
  options.safety_phase_ns = 40 * kSecond;
  options.liveness_budget_ns = 60 * kSecond;
  World world(options);
  world.add_lease_store();
  world.add_instance("instance-1");
  Waited waited;
  world.workflows().add(runtime::Workflow{
      "order", {runtime::StepItem{"wait", [&](runtime::ExecutionContext& ctx) {
                                    waited.began_ns = world.true_now_ns();
                                    waited.came =
                                        world.await_moment(ctx, kind, awaited, timeout_ns);
                                    waited.returned_ns = world.true_now_ns();
                                    // Long enough that the tree's own lease renews while the step
                                    // still runs.
                                    if (!waited.came) ctx.env().sleep(15 * kSecond);
                                  }}}});
  world.submit(kTree, "order");
  EXPECT_EQ(world.run().outcome, RunOutcome::kCompleted);
  const NodeId instance = *world.find_node("instance-1");
  std::optional<std::int64_t> first;
  for (const HistoryEvent& e : world.history().events()) {
    if (e.world == WorldEventKind::kRuntime && e.node == instance && e.runtime.kind == kind) {
      first = e.time_ns;
      break;
    }
  }
  return {waited, first};
}

TEST(WorldMoments, AStepGoesOnAtTheInstantItsLeasesRenewalLeaves) {
  const auto [waited, renewal] = run_await(runtime::EventKind::kRenewSent, 20 * kSecond);
  ASSERT_TRUE(renewal.has_value());
  EXPECT_TRUE(waited.came);
  EXPECT_EQ(waited.returned_ns, *renewal);
}

TEST(WorldMoments, WithoutTheMomentTheStepGoesOnAtItsTimeout) {
  // The first renewal leaves about 10 s after the take: a 3 s wait ends before it.
  const auto [waited, renewal] = run_await(runtime::EventKind::kRenewSent, 3 * kSecond);
  EXPECT_FALSE(waited.came);
  EXPECT_EQ(waited.returned_ns - waited.began_ns, 3 * kSecond);
  ASSERT_TRUE(renewal.has_value());
  EXPECT_GT(*renewal, waited.returned_ns);
  // A moment of another lease never wakes it: the tree's own lease renews (about 10 s after its
  // take) while the step awaits a lease nobody holds, for 20 s.
  const auto [other, own_renewal] = run_await(runtime::EventKind::kRenewSent, 20 * kSecond,
                                              runtime::LeaseKey{"tenant-1", "none"});
  ASSERT_TRUE(own_renewal.has_value());
  EXPECT_LT(*own_renewal, other.returned_ns);
  EXPECT_FALSE(other.came);
  EXPECT_EQ(other.returned_ns - other.began_ns, 20 * kSecond);
}

}  // namespace
}  // namespace fencesim::sim::world_moments_test
