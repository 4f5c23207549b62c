// The catalogue's fault stories do what their descriptions say, where a sweep cannot tell: a story
// whose fault lands in a harmless direction still passes and may still reach its marks, because a
// correct runtime is safe either way. These tests run a story's world and read its ledger.
#include <gtest/gtest.h>

#include <string>

#include "scenarios/scenario.h"

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
    sim::WorldOptions options;
    options.seed = seed;
    if (scenario->configure) scenario->configure(options);
    sim::World world(options);
    scenario->build(world);
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

}  // namespace
}  // namespace fencesim::scenarios::catalogue_faults_test
