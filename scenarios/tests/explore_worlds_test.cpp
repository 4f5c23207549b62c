// The small worlds of `fencesim explore` (scenarios/catalogue_explore.cpp), read from the worlds
// they build (no run): a chosen stop lasts one of four times around the lease's boundaries, well
// inside the holder's belief, just inside it, just past the store's expiry and past the next
// holder's takeover. A plain run draws each choice from the seed, so forty seeds draw all four.
#include <gtest/gtest.h>

#include <set>

#include "scenarios/scenario.h"
#include "scenarios/tests/built_world.h"

namespace fencesim::scenarios::explore_worlds_test {
namespace {

using runtime::kMillisecond;
using runtime::kSecond;

TEST(ExploreWorlds, AChosenStopLastsOneOfFourTimesAroundTheLeasesBoundaries) {
  static const ScenarioRegistry registry = builtin_scenarios();
  for (const char* name :
       {"explore-two-holders-pause", "explore-two-remote-waits", "explore-confirm-stop"}) {
    std::set<std::int64_t> durations;
    std::int64_t belief_ns = 0;
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
      const auto world = testing::built_world(*registry.find(name), seed);
      const sim::LeaseTerms& lease = world->options().lease;
      ASSERT_EQ(lease.ttl_ns, 3 * kSecond) << name;
      belief_ns = lease.ttl_ns - lease.drift_margin_ns();
      ASSERT_EQ(world->fault_plan().faults.size(), 1u) << name;
      EXPECT_EQ(world->fault_plan().faults[0].kind, sim::FaultKind::kStop) << name;
      durations.insert(world->fault_plan().faults[0].duration_ns);
    }
    // Just past the store's expiry is 3.005 s: a stop of 2.995 s ends before the store lets the
    // lease go, and no holder is ever stopped across it.
    EXPECT_EQ(durations, (std::set<std::int64_t>{kSecond, belief_ns - 5 * kMillisecond,
                                                 3 * kSecond + 5 * kMillisecond, 7 * kSecond}))
        << name;
  }
}

}  // namespace
}  // namespace fencesim::scenarios::explore_worlds_test
