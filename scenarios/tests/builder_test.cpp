// What a scenario written with the builder (scenarios/builder.h) puts in its world, read from the
// world it builds (no run): its trees arrive at the times it gives them, its instances start when
// it says. A story whose second tree arrives 2 s in (anyinstance-independent-epochs: the root
// whose epoch a stall moves on meets a tree already running) is another story at 0 s.
#include <gtest/gtest.h>

#include "scenarios/scenario.h"
#include "scenarios/tests/built_world.h"

namespace fencesim::scenarios::builder_test {
namespace {

using runtime::kSecond;

TEST(Builder, TreesArriveAndInstancesStartWhenTheScenarioSays) {
  static const ScenarioRegistry registry = builtin_scenarios();
  std::vector<std::pair<std::string, std::int64_t>> arrivals;
  {
    // One world at a time: a thread holds one live scheduler.
    const auto epochs = testing::built_world(*registry.find("anyinstance-independent-epochs"), 1);
    for (const sim::World::Submission& s : epochs->submissions()) {
      arrivals.emplace_back(s.key.lease_execution_id, s.at_ns);
    }
  }
  EXPECT_EQ(arrivals, (std::vector<std::pair<std::string, std::int64_t>>{
                          {"order-1", 0}, {"order-2", 2 * kSecond}}));
  const auto refusal = testing::built_world(*registry.find("aggregate-refusal-after-expiry"), 1);
  std::vector<std::pair<std::string, std::int64_t>> starts;
  for (const auto& [node, start_ns] : refusal->instance_starts()) {
    starts.emplace_back(refusal->node_names()[node], start_ns);
  }
  EXPECT_EQ(starts, (std::vector<std::pair<std::string, std::int64_t>>{
                        {"instance-1", 0}, {"instance-2", 5 * kSecond}}));
}

}  // namespace
}  // namespace fencesim::scenarios::builder_test
