// A node's wall clock is its monotonic clock plus the steps faults gave it (sim/node_clock.h): a
// drift moves both. The lease store judges expiry by its own wall clock, so a drift on the store
// node must reach that clock, or the fast store clock that eats into a holder's drift margin (what
// the ADR's 2 * bound * ttl margin exists for) is never simulated.
#include <gtest/gtest.h>

#include <cstdint>

#include "runtime/execution_context.h"
#include "sim/node_clock.h"
#include "sim/tests/scheduler_test_util.h"
#include "sim/world.h"

namespace fencesim::sim::testing::node_clock_test {
namespace {

TEST(NodeClockTest, TheWallClockDriftsWithTheMonotonicClock) {
  // Read in time order, as a world does: 50 s at +1000 ppm, a step of -2 s, 50 s at -500 ppm.
  NodeClock clock(1'000 * kSec);
  const std::int64_t at_10 = clock.wall_at(10 * kSec);
  clock.set_drift_ppm(10 * kSec, 1000);
  EXPECT_EQ(clock.wall_at(35 * kSec) - clock.monotonic_at(35 * kSec), 1'000 * kSec);
  EXPECT_EQ(clock.wall_at(60 * kSec) - at_10, 50 * kSec + 50 * kMs);
  clock.step_wall(-2 * kSec);
  clock.set_drift_ppm(60 * kSec, -500);
  for (const std::int64_t t : {60 * kSec, 85 * kSec, 110 * kSec}) {
    EXPECT_EQ(clock.wall_at(t) - clock.monotonic_at(t), 998 * kSec) << "at " << t;
  }
  EXPECT_EQ(clock.wall_at(110 * kSec) - at_10, 100 * kSec + 25 * kMs - 2 * kSec);
}

TEST(NodeClockTest, ADriftOnTheLeaseStoreMovesTheWallClockItJudgesBy) {
  WorldOptions options;
  options.seed = 3;
  options.safety_phase_ns = 40 * kSec;
  options.liveness_budget_ns = 120 * kSec;
  World world(options);
  world.add_lease_store();
  world.add_instance("instance-1");
  world.workflows().add(runtime::Workflow{
      "order", {runtime::StepItem{"wait", [](runtime::ExecutionContext& ctx) {
                  for (int i = 0; i < 30; ++i) ctx.env().sleep(kSec);  // renews meanwhile
                }}}});
  world.submit(runtime::LeaseKey{"tenant-1", "order-1"}, "order");
  Fault drift{FaultKind::kClockDrift, "lease-store"};
  drift.at_ns = 5 * kSec;
  drift.amount = 1000;  // ppm: the store's clock runs fast
  world.set_fault_plan(FaultPlan{{drift}});
  world.run();
  // The store's wall clock ran ahead of true time by the drift since 5 s (every clock of a world
  // starts at one wall offset, which a call before the drift shows).
  std::int64_t offset = -1;
  int judged_after = 0;
  for (const HistoryEvent& e : world.history().events()) {
    if (e.world != WorldEventKind::kStoreCall || !e.store || e.store->store != "lease-store") {
      continue;
    }
    const std::int64_t ahead = e.store->store_wall_ns - e.time_ns;
    if (e.time_ns <= 5 * kSec) {
      offset = ahead;
      continue;
    }
    ASSERT_GE(offset, 0) << "a store call before the drift";
    if (e.time_ns < 15 * kSec) continue;
    ++judged_after;
    const std::int64_t drifted = (e.time_ns - 5 * kSec) / 1000;
    EXPECT_NEAR(static_cast<double>(ahead - offset), static_cast<double>(drifted), 1.0)
        << "store call at " << e.time_ns;
  }
  EXPECT_GE(judged_after, 2) << "renewals judged by the drifted store";
}

}  // namespace
}  // namespace fencesim::sim::testing::node_clock_test
