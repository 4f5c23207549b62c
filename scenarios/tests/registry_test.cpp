// The registry of scenarios: a name is taken once, and a second registration under it changes
// nothing (the CLI registers specs at run time, beside the built-in scenarios, and reports the
// clash; a scenario found before must still be the one it was).
#include <gtest/gtest.h>

#include <stdexcept>

#include "scenarios/scenario.h"

namespace fencesim::scenarios::registry_test {
namespace {

TEST(ScenarioRegistry, ASecondScenarioUnderATakenNameIsRefusedAndChangesNothing) {
  ScenarioRegistry registry;
  Scenario first;
  first.name = "story";
  first.description = "the first";
  registry.add(first);
  const Scenario* found = registry.find("story");
  ASSERT_NE(found, nullptr);
  Scenario second;
  second.name = "story";
  second.description = "the second";
  second.spec_toml = "name = \"story\"\n";
  EXPECT_THROW(registry.add(second), std::invalid_argument);
  EXPECT_EQ(registry.find("story"), found);
  EXPECT_EQ(found->description, "the first");
  EXPECT_EQ(found->spec_toml, "");
  EXPECT_EQ(registry.all().size(), 1u);
}

}  // namespace
}  // namespace fencesim::scenarios::registry_test
