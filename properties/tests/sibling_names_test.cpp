// siblings-named-apart on hand-made definitions: the runtime's registry refuses twins
// (runtime::WorkflowRegistry::add), so no correct run ever shows this oracle firing, and nothing
// showed that it still could (made to return at once, every test passed). Its walk is given the
// definitions through a lookup here, twins included.
#include <gtest/gtest.h>

#include <map>

#include "properties/invariants_sibling_names.h"

namespace fencesim::properties::sibling_names_test {
namespace {

runtime::StepItem step(std::string name) {
  return runtime::StepItem{std::move(name), {}};
}
runtime::ChildItem child(std::string name, std::string workflow) {
  return runtime::ChildItem{std::move(name), runtime::ChildPlacement::kParentInstance,
                            std::move(workflow)};
}

class Deployed {
 public:
  void add(runtime::Workflow workflow) {
    std::string name = workflow.name;
    workflows_.insert_or_assign(std::move(name), std::move(workflow));
  }
  std::vector<Violation> check(const std::vector<std::string>& roots) const {
    std::vector<Violation> out;
    check_siblings_named_apart(
        [this](const std::string& name) -> const runtime::Workflow* {
          auto it = workflows_.find(name);
          return it == workflows_.end() ? nullptr : &it->second;
        },
        roots, out);
    return out;
  }

 private:
  std::map<std::string, runtime::Workflow> workflows_;
};

TEST(SiblingsNamedApart, DistinctNamesPass) {
  Deployed d;
  d.add({"order",
         {step("charge"), runtime::GroupItem{"fan", {child("a", "ship"), child("b", "ship")}},
          step("notify")}});
  d.add({"ship", {step("pack"), step("send")}});
  EXPECT_TRUE(d.check({"order"}).empty());
}

TEST(SiblingsNamedApart, TwoStepsOfOneLevelAreReported) {
  Deployed d;
  d.add({"order", {step("charge"), step("notify"), step("charge")}});
  const std::vector<Violation> found = d.check({"order"});
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].invariant, "siblings-named-apart");
  EXPECT_NE(found[0].message.find("named 'charge'"), std::string::npos) << found[0].message;
}

TEST(SiblingsNamedApart, AStepAndAGroupOfOneNameAreReported) {
  Deployed d;
  d.add({"order", {step("fan"), runtime::GroupItem{"fan", {child("a", "ship")}}}});
  d.add({"ship", {step("pack")}});
  EXPECT_EQ(d.check({"order"}).size(), 1U);
}

TEST(SiblingsNamedApart, TwoChildrenOfOneGroupAreReported) {
  Deployed d;
  d.add({"order", {runtime::GroupItem{"fan", {child("a", "ship"), child("a", "ship")}}}});
  d.add({"ship", {step("pack")}});
  const std::vector<Violation> found = d.check({"order"});
  ASSERT_EQ(found.size(), 1U);
  EXPECT_NE(found[0].message.find("two children of group 'fan' named 'a'"), std::string::npos)
      << found[0].message;
}

TEST(SiblingsNamedApart, TwinsDeepInAChildsWorkflowAreReportedOnceWithTheirRoot) {
  Deployed d;
  d.add({"order", {runtime::GroupItem{"fan", {child("a", "ship"), child("b", "ship")}}}});
  d.add({"ship", {runtime::GroupItem{"inner", {child("x", "pack")}}}});
  d.add({"pack", {step("box"), step("box")}});
  const std::vector<Violation> found = d.check({"order", "order"});
  ASSERT_EQ(found.size(), 1U);  // each workflow judged once per run
  EXPECT_NE(found[0].message.find("workflow 'pack' (reached from submitted root workflow 'order')"),
            std::string::npos)
      << found[0].message;
}

// Every placement's workflow is walked: an AnyInstance or ThisWorkflow child's as much as a
// ParentInstance one's (red team 32b: a walk into ParentInstance children only left a workflow
// reached only as an AnyInstance child, run under a lease of its own, never judged).
TEST(SiblingsNamedApart, TwinsInAWorkflowReachedByAnyPlacementAreReported) {
  for (const runtime::ChildPlacement placement :
       {runtime::ChildPlacement::kAnyInstance, runtime::ChildPlacement::kThisWorkflow,
        runtime::ChildPlacement::kParentInstance}) {
    Deployed d;
    d.add({"order", {runtime::GroupItem{"fan", {runtime::ChildItem{"a", placement, "ship"}}}}});
    d.add({"ship", {step("pack"), step("pack")}});
    const std::vector<Violation> found = d.check({"order"});
    ASSERT_EQ(found.size(), 1U) << static_cast<int>(placement);
    EXPECT_NE(found[0].message.find("workflow 'ship'"), std::string::npos) << found[0].message;
  }
}

TEST(SiblingsNamedApart, NamesAreComparedByEveryByte) {
  Deployed d;
  // Alike up to a NUL and past it: distinct names, not twins.
  d.add({"order", {step(std::string("a\0b", 3)), step(std::string("a\0c", 3))}});
  EXPECT_TRUE(d.check({"order"}).empty());
  d.add({"order", {step(std::string("a\0b", 3)), step(std::string("a\0b", 3))}});
  const std::vector<Violation> found = d.check({"order"});
  ASSERT_EQ(found.size(), 1U);
  EXPECT_NE(found[0].message.find("a\\x00b"), std::string::npos) << found[0].message;
}

TEST(SiblingsNamedApart, AWorkflowNotDeployedIsNotJudgedHere) {
  Deployed d;
  d.add({"order", {runtime::GroupItem{"fan", {child("a", "missing")}}}});
  EXPECT_TRUE(d.check({"order", "absent"}).empty());
}

// An empty name is a path part naming nothing (red team 45c-12): an item of a level, or a child of
// a group, named '' is reported, once per workflow.
TEST(SiblingsNamedApart, AnEmptyItemOrChildNameIsReported) {
  Deployed d;
  d.add({"order", {step("charge"), step("")}});
  const std::vector<Violation> found = d.check({"order"});
  ASSERT_EQ(found.size(), 1U);
  EXPECT_NE(found[0].message.find("of its level named ''"), std::string::npos)
      << found[0].message;
  Deployed g;
  g.add({"order", {runtime::GroupItem{"fan", {child("a", "ship"), child("", "ship")}}}});
  g.add({"ship", {step("pack")}});
  const std::vector<Violation> in_group = g.check({"order"});
  ASSERT_EQ(in_group.size(), 1U);
  EXPECT_NE(in_group[0].message.find("a child of group 'fan' named ''"), std::string::npos)
      << in_group[0].message;
  Deployed named;
  named.add({"order", {runtime::GroupItem{"", {child("a", "ship")}}}});
  named.add({"ship", {step("pack")}});
  EXPECT_EQ(named.check({"order"}).size(), 1U) << "a group named ''";
}

}  // namespace
}  // namespace fencesim::properties::sibling_names_test
