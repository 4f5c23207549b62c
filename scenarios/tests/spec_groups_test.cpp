// The node groups a spec's fault may name (docs/specs.md: any-GROUP draws one node per fault,
// every-GROUP makes one fault per node), read from the plan a spec's world draws (no run):
// "store" is the lease store and the sinks, "sink" the sinks alone, "instance" the instances.
#include <gtest/gtest.h>

#include <set>

#include "scenarios/spec.h"
#include "scenarios/tests/built_world.h"

namespace fencesim::scenarios::spec_groups_test {
namespace {

const std::string kTopology = R"(
[[instance]]
name = "a"
[[instance]]
name = "b"
[[sink]]
name = "payments"
[[sink]]
name = "ledger"
[[workflow]]
name = "pay"
steps = [{ kind = "write", name = "charge", duration = "1s", sink = "payments" }]
[[tree]]
tenant = "t"
execution = "o"
workflow = "pay"
)";

// The nodes the faults of a spec with one [[fault]] on `node` hit over seeds 1..20.
std::multiset<std::string> hit(const std::string& node) {
  ScenarioRegistry registry;
  const std::string name = register_spec_text(registry, "name = \"groups\"\n" + kTopology + R"(
[[fault]]
kind = "store-down"
node = ")" + node + R"("
at = "1s"
lasting = "1s"
)",
                                              "groups.toml");
  std::multiset<std::string> nodes;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    for (const sim::Fault& fault :
         testing::built_world(*registry.find(name), seed)->fault_plan().faults) {
      nodes.insert(fault.node);
    }
  }
  return nodes;
}

TEST(SpecGroups, TheStoreGroupIsTheLeaseStoreAndTheSinks) {
  const std::multiset<std::string> every = hit("every-store");
  EXPECT_EQ(std::set<std::string>(every.begin(), every.end()),
            (std::set<std::string>{"lease-store", "payments", "ledger"}));
  EXPECT_EQ(every.size(), 60u);  // one fault per store, per seed
  const std::multiset<std::string> any = hit("any-store");
  EXPECT_EQ(any.size(), 20u);  // one fault per seed, on a store drawn
  EXPECT_EQ(std::set<std::string>(any.begin(), any.end()),
            (std::set<std::string>{"lease-store", "payments", "ledger"}));
  const std::multiset<std::string> sinks = hit("every-sink");
  EXPECT_EQ(std::set<std::string>(sinks.begin(), sinks.end()),
            (std::set<std::string>{"payments", "ledger"}));
}

}  // namespace
}  // namespace fencesim::scenarios::spec_groups_test
