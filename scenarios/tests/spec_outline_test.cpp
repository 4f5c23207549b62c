// What `fencesim check-spec` says of each fault a spec draws (spec::describe, scenarios/
// spec_faults.cpp): every form a generator takes, written out. The same text is the spec's outline
// that `sweep --resume` compares with the sweep's (cli/sweep_resume.cpp): a form described wrongly
// or not at all lets an edited spec resume a sweep it no longer is, or shows a user a fault that
// is not the one drawn.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scenarios/scenario.h"
#include "scenarios/spec.h"

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

}  // namespace
}  // namespace fencesim::scenarios
