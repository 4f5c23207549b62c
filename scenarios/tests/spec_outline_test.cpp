// What a spec makes, read back without running it: each fault it draws as `fencesim check-spec`
// describes it (spec::describe, scenarios/spec_faults.cpp), every form a generator takes written
// out, and the world its [options] make. The description is also the spec's outline that
// `sweep --resume` compares with the sweep's (cli/sweep_resume.cpp): a form described wrongly or
// not at all lets an edited spec resume a sweep it no longer is, or shows a user a fault that is
// not the one drawn.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scenarios/scenario.h"
#include "scenarios/spec.h"
#include "sim/world.h"

namespace fencesim::scenarios {
namespace {

const std::string kEveryForm = R"(name = "describe-forms"
workload = "kleppmann-fencing"

[[fault]]
kind = "network-drop"
node = "instance-1"
at = "1s"
lasting = "2s"
probability = [0.25, 0.5]

[[fault]]
kind = "network-duplicate"
node = "instance-2"
after = "write-sent"
delay = ["0ms", "500ms"]
lasting = "1s"
probability = 0.3
chance = 0.5

[[fault]]
kind = "clock-drift"
node = "instance-1"
at = ["2s", "3s"]
amount = [-200, 150]
count = [1, 2]

[[fault]]
kind = "stall"
node = "instance-1"
after = "lease-taken"
occurrence = 2
after_node = "instance-2"
lasting = "40s"

[[fault]]
kind = "stop"
node = "instance-1"
after = "renew-sent"
aim = "holder-expiry"
delay = "-1s"
until = "store-expiry"
until_delay = "2s"

[[fault]]
kind = "stall"
node = "instance-1"
after = "write-sent"
aim = "in-flight"
within = [0.2, 0.8]
lasting = "35s"
)";

TEST(SpecOutline, EachFaultIsDescribedInEveryFormItTakes) {
  ScenarioRegistry registry = builtin_scenarios();
  SpecOutline outline;
  ASSERT_EQ(register_spec_text(registry, kEveryForm, "forms.toml", &outline), "describe-forms");
  EXPECT_EQ(outline.faults,
            (std::vector<std::string>{
                "network-drop on instance-1, at 1s, lasting 2s, probability 0.25..0.5, count 1 "
                "(line 4)",
                "network-duplicate on instance-2, after write-sent #1 of its node + 0s..500ms, "
                "lasting 1s, probability 0.3, chance 0.5, count 1 (line 11)",
                "clock-drift on instance-1, at 2s..3s, amount -200..150 ppm, count 1..2 (line 20)",
                "stall on instance-1, after lease-taken #2 of instance-2, lasting 40s, count 1 "
                "(line 27)",
                "stop on instance-1, after renew-sent #1 of its node, aimed at holder-expiry "
                "offset by -1s, until store-expiry offset by 2s, count 1 (line 35)",
                "stall on instance-1, after write-sent #1 of its node, aimed in flight at "
                "0.2..0.8 of the way, lasting 35s, count 1 (line 44)"}));
}

// Every [options] key reaches the world it names, each value as written (red team 37a-22 set the
// latency's high to its low: every spec with a latency range ran at one fixed latency, and no
// test looked at the world a spec's options make).
TEST(SpecOptions, EveryOptionReachesTheWorld) {
  const std::string text = R"(name = "every-option"
workload = "kleppmann-fencing"
[options]
safety_phase = "70s"
liveness_budget = "200s"
lease_ttl = "20s"
renew_interval = "4s"
drift_bound_ppm = 500
drift_margin_min = "15ms"
poll_interval = "750ms"
rpc_timeout = "3s"
latency = ["2ms", "40ms"]
step_limit = 123456
)";
  ScenarioRegistry registry = builtin_scenarios();
  ASSERT_EQ(register_spec_text(registry, text, "options.toml"), "every-option");
  sim::WorldOptions world;
  registry.find("every-option")->configure(world);
  constexpr std::int64_t kMs = 1'000'000;
  EXPECT_EQ(world.safety_phase_ns, 70'000 * kMs);
  EXPECT_EQ(world.liveness_budget_ns, 200'000 * kMs);
  EXPECT_EQ(world.lease.ttl_ns, 20'000 * kMs);
  EXPECT_EQ(world.lease.renew_interval_ns, 4'000 * kMs);
  EXPECT_EQ(world.lease.drift_bound_ppm, 500);
  EXPECT_EQ(world.lease.drift_margin_min_ns, 15 * kMs);
  EXPECT_EQ(world.poll_interval_ns, 750 * kMs);
  EXPECT_EQ(world.network.rpc_timeout_ns, 3'000 * kMs);
  EXPECT_EQ(world.network.latency_min_ns, 2 * kMs);
  EXPECT_EQ(world.network.latency_max_ns, 40 * kMs);
  EXPECT_EQ(world.step_limit, 123456u);
}

}  // namespace
}  // namespace fencesim::scenarios
