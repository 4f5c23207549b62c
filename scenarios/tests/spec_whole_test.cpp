// A spec is checked whole: every error of a file comes in one SpecError (all(), in the order of
// their lines), unknown keys are named unknown with the known ones listed, and a key of another
// kind is named misplaced. Nothing is registered while any error stands.
#include <gtest/gtest.h>

#include "scenarios/scenario.h"
#include "scenarios/spec.h"

namespace fencesim::scenarios::spec_whole_test {
namespace {

const std::string kFourErrors =
    "name = \"whole\"\n"                             // 1
    "workload = \"kleppmann-fencing\"\n"             // 2
    "marks = [\"stale-write-refused >= 2\"]\n"       // 3: a floor without '%'
    "[[fault]]\n"                                    // 4
    "kind = \"stal\"\n"                              // 5: unknown fault kind
    "node = \"instance-1\"\n"                        // 6
    "at = \"1s\"\n"                                  // 7
    "[[fault]]\n"                                    // 8
    "kind = \"stall\"\n"                             // 9
    "node = \"instance-9\"\n"                        // 10: unknown node
    "at = \"1s\"\n"                                  // 11
    "lastin = \"3s\"\n";                             // 12: unknown key (and 'lasting' missing)

TEST(SpecWhole, EveryErrorOfAFileInOneReport) {
  ScenarioRegistry registry = builtin_scenarios();
  try {
    register_spec_text(registry, kFourErrors, "w.toml");
    FAIL() << "no error";
  } catch (const SpecError& error) {
    const std::vector<std::string> all = error.all();
    ASSERT_EQ(all.size(), 4u) << error.what();
    EXPECT_TRUE(all[0].starts_with("w.toml:3: marks: ")) << all[0];
    EXPECT_TRUE(all[1].starts_with("w.toml:5: [[fault]].kind: unknown fault kind 'stal'")) << all[1];
    EXPECT_TRUE(all[2].starts_with("w.toml:8: [[fault]].lasting: missing")) << all[2];
    EXPECT_EQ(all[3].rfind("w.toml:12: [[fault]].lastin: unknown key (known: kind, node", 0), 0u)
        << all[3];
    // what() stays one line: the first error, and how many more.
    EXPECT_EQ(std::string(error.what()),
              all[0] + " (and 3 more errors: `fencesim check-spec w.toml` lists them all)");
  }
  EXPECT_EQ(registry.find("whole"), nullptr);
}

TEST(SpecWhole, ANodeCheckedOnlyOnceItsFaultReads) {
  // The unknown node of a fault that reads is reported against the workload's world.
  ScenarioRegistry registry = builtin_scenarios();
  const std::string spec =
      "name = \"n\"\nworkload = \"kleppmann-fencing\"\n[[fault]]\nkind = \"stall\"\n"
      "node = \"instance-9\"\nat = \"1s\"\nlasting = \"3s\"\n";
  try {
    register_spec_text(registry, spec, "n.toml");
    FAIL() << "no error";
  } catch (const SpecError& error) {
    ASSERT_EQ(error.all().size(), 1u) << error.what();
    EXPECT_TRUE(std::string(error.what()).starts_with("n.toml:5: [[fault]].node: unknown node "))
        << error.what();
  }
}

TEST(SpecWhole, AMisspelledStepKeyIsUnknownAMisplacedOneIsNotUsed) {
  const std::string head =
      "name = \"t\"\n[[instance]]\nname = \"instance-1\"\n[[sink]]\nname = \"payments\"\n"
      "[[workflow]]\nname = \"w\"\nsteps = [\n";
  const std::string tail = "]\n[[tree]]\ntenant = \"t\"\nexecution = \"e\"\nworkflow = \"w\"\n";
  ScenarioRegistry registry = builtin_scenarios();
  try {
    register_spec_text(registry,
                       head +
                           "  { kind = \"confirm-call\", name = \"c\", duraton = \"1s\" },\n"
                           "  { kind = \"work\", name = \"x\", sink = \"payments\" },\n" +
                           tail,
                       "t.toml");
    FAIL() << "no error";
  } catch (const SpecError& error) {
    const std::vector<std::string> all = error.all();
    ASSERT_EQ(all.size(), 2u) << error.what();
    EXPECT_EQ(all[0],
              "t.toml:9: [[workflow]].steps.duraton: unknown key (known for a 'confirm-call' "
              "step: kind, name, duration)");
    EXPECT_EQ(all[1],
              "t.toml:10: [[workflow]].steps.sink: not used by a 'work' step (its keys: kind, "
              "name, duration)");
  }
  EXPECT_EQ(registry.find("t"), nullptr);
}

}  // namespace
}  // namespace fencesim::scenarios::spec_whole_test
