// The catalogue's fault stories do what their descriptions say, where a sweep cannot tell: a story
// whose fault lands in a harmless direction still passes and may still reach its marks, because a
// correct runtime is safe either way. These tests run a story's world and read its ledger.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "scenarios/scenario.h"
#include "scenarios/tests/built_world.h"

namespace fencesim::scenarios::catalogue_faults_test {
namespace {

// clock-drift-at-bound is the story of the dangerous directions: a slow holder clock believes its
// lease longer, a fast store clock expires it sooner, and only the drift margin keeps the
// holder's confirmedUntil before the store's expiry. Drifts the other way (a fast holder, a slow
// store) make every belief more conservative: the story passes, reaches its takeover mark, and
// tests nothing. So each clock must move the dangerous way, by the configured bound.
TEST(ClockDriftAtBound, TheStoreRunsFastAndTheHoldersSlowAtTheBound) {
  const ScenarioRegistry registry = builtin_scenarios();
  const Scenario* scenario = registry.find("clock-drift-at-bound");
  ASSERT_NE(scenario, nullptr);
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const auto built = testing::built_world(*scenario, seed);
    sim::World& world = *built;
    world.run();
    const std::int64_t bound = world.options().lease.drift_bound_ppm;
    int drifts = 0;
    for (const sim::FaultEffect& effect : world.fault_effects()) {
      if (effect.kind != sim::FaultKind::kClockDrift) continue;
      ++drifts;
      const std::string& node = world.node_names().at(effect.node);
      // Measured when the heal ends it, at the safety phase's end: the clock's lead over true
      // time, as a rate over the time it ran (within a ppm or two of its own, by rounding).
      const std::int64_t ran = world.options().safety_phase_ns - effect.start_ns;
      ASSERT_GT(ran, 0) << node;
      const std::int64_t ppm = effect.clock_moved_ns * 1'000'000 / ran;
      if (node == "lease-store") {
        EXPECT_GE(ppm, bound - 2) << "the store's clock runs fast (seed " << seed << ")";
        EXPECT_LT(ppm, bound) << "within the bound (seed " << seed << ")";
      } else {
        EXPECT_LE(ppm, -(bound - 2)) << node << "'s clock runs slow (seed " << seed << ")";
        EXPECT_GT(ppm, -bound) << node << ": within the bound (seed " << seed << ")";
      }
    }
    EXPECT_EQ(drifts, 3) << "the store's clock and both holders'";
  }
}

// slow-renewal-reply is the story of a lease store that answers everyone slowly while it still
// renews: its store-slow fault is on the lease store, so every request to the store, the holder's
// renewals and the second instance's takes alike, lands at least the fault's extra latency after it
// left (and each reply as late again). Aimed at instance-1 instead, the holder's renewals are just
// as late and the story still reaches renewal-reply-late: only instance-2's prompt takes tell.
TEST(SlowRenewalReply, TheLeaseStoreAnswersEveryoneLate) {
  const ScenarioRegistry registry = builtin_scenarios();
  const Scenario* scenario = registry.find("slow-renewal-reply");
  ASSERT_NE(scenario, nullptr);
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const auto built = testing::built_world(*scenario, seed);
    sim::World& world = *built;
    world.run();
    ASSERT_EQ(world.fault_plan().faults.size(), 1u);
    const sim::Fault& fault = world.fault_plan().faults.front();
    EXPECT_EQ(fault.kind, sim::FaultKind::kStoreSlow);
    EXPECT_EQ(fault.node, "lease-store");
    ASSERT_EQ(world.fault_effects().size(), 1u);
    const sim::FaultEffect& effect = world.fault_effects().front();
    EXPECT_GE(effect.messages_delayed, 1u) << effect.describe(world.node_names());
    std::map<std::string, int> late;  // per requester: its requests to the store in the window
    for (const sim::HistoryEvent& e : world.history().events()) {
      if (e.world != sim::WorldEventKind::kStoreCall || !e.store) continue;
      if (e.store->store != "lease-store") continue;
      if (e.store->sent_ns < effect.start_ns || e.store->sent_ns >= effect.end_ns) continue;
      const std::string& from = world.node_names().at(e.store->from);
      EXPECT_GE(e.time_ns - e.store->sent_ns, fault.amount)
          << from << "'s request sent at " << e.store->sent_ns << " ns was answered promptly (seed "
          << seed << ")";
      ++late[from];
    }
    EXPECT_GE(late["instance-1"], 1) << "the holder's renewals (seed " << seed << ")";
    EXPECT_GE(late["instance-2"], 1) << "the second instance's takes (seed " << seed << ")";
  }
}

}  // namespace
}  // namespace fencesim::scenarios::catalogue_faults_test
