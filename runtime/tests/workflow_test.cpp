// Issue 29 item 5: a workflow that names two siblings alike is refused at registration. A step's
// path is made of its names, and so are its checkpoint entry, its idempotency keys and an
// AnyInstance child's lease key: on the old runtime the second same-named step was skipped as
// committed, the second AnyInstance child never placed, and two branches wrote under one key.
#include "runtime/workflow.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace fencesim::runtime::workflow_test {
namespace {

StepItem step(const std::string& name) {
  return StepItem{name, [](ExecutionContext&) {}};
}

GroupItem group(const std::string& name, std::vector<ChildItem> children) {
  return GroupItem{name, std::move(children)};
}

// The refusal's message, or "" when `workflow` was registered.
std::string refusal(WorkflowRegistry& registry, Workflow workflow) {
  try {
    registry.add(std::move(workflow));
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

TEST(WorkflowRegistry, RefusesTwoStepsOfOneNameAtOneLevel) {
  WorkflowRegistry registry;
  const std::string why =
      refusal(registry, Workflow{"w", {step("pay"), step("ship"), step("pay")}});
  EXPECT_NE(why.find("names two items (steps or groups) of its level 'pay'"), std::string::npos)
      << why;
  // Refused whole: nothing of it is deployed, and a workflow of the same name can follow.
  EXPECT_FALSE(registry.contains("w"));
  EXPECT_EQ(refusal(registry, Workflow{"w", {step("pay"), step("ship")}}), "");
}

TEST(WorkflowRegistry, RefusesTwoChildrenOfOneNameInOneGroupWhateverTheirPlacements) {
  for (const ChildPlacement first : {ChildPlacement::kParentInstance, ChildPlacement::kThisWorkflow,
                                     ChildPlacement::kAnyInstance}) {
    for (const ChildPlacement second :
         {ChildPlacement::kParentInstance, ChildPlacement::kAnyInstance}) {
      WorkflowRegistry registry;
      const std::string why =
          refusal(registry, Workflow{"w", {group("g", {{"c", first, "x"}, {"c", second, "y"}})}});
      EXPECT_NE(why.find("names two children of group 'g' 'c'"), std::string::npos)
          << to_string(first) << " + " << to_string(second) << ": " << why;
    }
  }
}

TEST(WorkflowRegistry, RefusesAStepAndAGroupOfOneName) {
  WorkflowRegistry registry;
  EXPECT_NE(refusal(registry, Workflow{"w", {step("x"), group("x", {{"c", {}, "y"}})}}), "");
}

// An empty name is a path part that names nothing: a group "" would give its child "x" the path
// "x" of the step "x" beside it (one checkpoint entry, one idempotency key: the second skipped as
// committed), and a step "" the path of its tree. Refused wherever it stands.
TEST(WorkflowRegistry, RefusesAnEmptyNameAtEveryLevel) {
  WorkflowRegistry registry;
  const std::string group_named_nothing =
      refusal(registry, Workflow{"w", {step("x"), group("", {{"x", {}, "y"}})}});
  EXPECT_NE(group_named_nothing.find("an empty name among its items"), std::string::npos)
      << group_named_nothing;
  EXPECT_NE(refusal(registry, Workflow{"w", {step("")}}), "");
  const std::string child_named_nothing =
      refusal(registry, Workflow{"w", {group("g", {{"", {}, "y"}})}});
  EXPECT_NE(child_named_nothing.find("an empty name among its children of group 'g'"),
            std::string::npos)
      << child_named_nothing;
  EXPECT_FALSE(registry.contains("w"));
}

TEST(WorkflowRegistry, ShowsHostileNamesAsTheirPathParts) {
  using namespace std::string_literals;
  WorkflowRegistry registry;
  const std::string name = "a/b\0c"s;
  const std::string why = refusal(registry, Workflow{"w", {step(name), step(name)}});
  EXPECT_NE(why.find("'a%2Fb%00c'"), std::string::npos) << why;
}

TEST(WorkflowRegistry, OneNameAtDifferentLevelsOrInDifferentGroupsIsAccepted) {
  // Their paths differ ("g/c" and "h/c"; "c" and "g/c"): nothing is shared.
  WorkflowRegistry registry;
  EXPECT_EQ(
      refusal(registry, Workflow{"w",
                                 {step("c"), group("g", {{"c", ChildPlacement::kAnyInstance, "x"}}),
                                  group("h", {{"c", ChildPlacement::kAnyInstance, "x"}})}}),
      "");
  // Names that differ only where an encoding would blur them are distinct paths.
  EXPECT_EQ(refusal(registry, Workflow{"v", {step("a/b"), step("a%2Fb"), step("a b")}}), "");
}

}  // namespace
}  // namespace fencesim::runtime::workflow_test
