// A world left at its default options still shuffles what is due at one instant: every scenario
// takes WorldOptions' default window, so a default of 1 would fire same-instant deliveries,
// timeouts and duplicates in the order they were scheduled in every run, and no sweep would
// ever meet those races (red team 33a: the default made 1, every test and sweep stayed green).
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>

#include "sim/world.h"

namespace fencesim::sim::testing::world_instant_order_test {
namespace {

// The order in which six callbacks due at one instant fire in a world of `seed`, defaults kept.
std::string instant_order(std::uint64_t seed, Strategy strategy) {
  WorldOptions options;
  options.seed = seed;
  options.strategy = strategy;
  options.safety_phase_ns = 10 * runtime::kSecond;
  options.liveness_budget_ns = 30 * runtime::kSecond;
  World world(options);
  world.add_lease_store();
  std::string order;
  for (char name = 'A'; name <= 'F'; ++name) {
    world.scheduler().at(runtime::kSecond, [&order, name] { order += name; });
  }
  world.run();
  return order;
}

TEST(WorldInstantOrder, TheDefaultOptionsFireOneInstantsEventsInSeededOrders) {
  for (const Strategy strategy : {Strategy::kRandomWalk, Strategy::kPct}) {
    std::set<std::string> orders;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      const std::string order = instant_order(seed, strategy);
      ASSERT_EQ(order.size(), 6u) << order;
      EXPECT_EQ(order, instant_order(seed, strategy)) << "seed " << seed;
      orders.insert(order);
    }
    EXPECT_GT(orders.size(), 5u) << "twenty seeds fired one instant's events in "
                                 << orders.size() << " orders";
  }
}

}  // namespace
}  // namespace fencesim::sim::testing::world_instant_order_test
