// A spec's [options] over a registered workload (docs/specs.md), read from the world the spec
// builds (no run): the spec's settings win over the workload's own, and what the spec leaves
// alone stays the workload's. anyinstance-independent-epochs sets a safety phase of 120 s itself.
#include <gtest/gtest.h>

#include "scenarios/spec.h"
#include "scenarios/tests/built_world.h"

namespace fencesim::scenarios::spec_options_test {
namespace {

using runtime::kSecond;

TEST(SpecOptions, TheSpecsOptionsWinOverTheWorkloadsOwn) {
  ScenarioRegistry registry = builtin_scenarios();
  const Scenario workload =
      *registry.find("anyinstance-independent-epochs");  // a copy: the registry grows
  std::int64_t ttl_ns = 0;
  {
    // One world at a time: a thread holds one live scheduler.
    const auto own = testing::built_world(workload, 1);
    ASSERT_EQ(own->options().safety_phase_ns, 120 * kSecond);
    ttl_ns = own->options().lease.ttl_ns;
  }
  const std::string name = register_spec_text(registry, R"(
name = "longer-epochs"
workload = "anyinstance-independent-epochs"
[options]
safety_phase = "150s"
rpc_timeout = "7s"
)",
                                              "longer-epochs.toml");
  const auto world = testing::built_world(*registry.find(name), 1);
  EXPECT_EQ(world->options().safety_phase_ns, 150 * kSecond);
  EXPECT_EQ(world->options().network.rpc_timeout_ns, 7 * kSecond);
  EXPECT_EQ(world->options().lease.ttl_ns, ttl_ns);  // left alone by the spec
}

// A cross-field error names the key the spec set, on its own line: with both of the pair set, the
// first of the pair (renew_interval against lease_ttl, drift_bound_ppm against drift_margin_min).
TEST(SpecOptions, ACrossFieldErrorNamesTheLineOfTheKeyItNames) {
  const auto error = [](const std::string& options) {
    ScenarioRegistry registry = builtin_scenarios();
    try {
      register_spec_text(registry,
                         "name = \"bad\"\nworkload = \"kleppmann-fencing\"\n[options]\n" + options,
                         "bad.toml");
    } catch (const SpecError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(error("lease_ttl = \"10s\"\nrenew_interval = \"20s\"\n"),
            "bad.toml:5: options.renew_interval: renewals every 20s cannot keep a lease of 10s");
  EXPECT_EQ(error("renew_interval = \"20s\"\nlease_ttl = \"10s\"\n"),
            "bad.toml:4: options.renew_interval: renewals every 20s cannot keep a lease of 10s");
}

}  // namespace
}  // namespace fencesim::scenarios::spec_options_test
