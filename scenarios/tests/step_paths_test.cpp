// The step paths a workload aims its timed withdrawals and probes at (scenarios/window_workload.h,
// step_paths): every step that runs under the root's lease, its own and those of its
// ParentInstance branches and ThisWorkflow levels, in workflow order; never an AnyInstance
// child's, which runs under a lease of its own.
#include <gtest/gtest.h>

#include "runtime/tree_runner.h"
#include "scenarios/window_workload.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios::step_paths_test {
namespace {

using runtime::ChildPlacement;
using runtime::join_path;

TEST(StepPaths, EveryStepUnderTheRootsLeaseAndNoAnyInstanceChilds) {
  runtime::WorkflowRegistry registry;
  registry.add(runtime::Workflow{"leaf", {work_step("post", 1)}});
  registry.add(
      runtime::Workflow{"order",
                        {work_step("reserve", 1),
                         runtime::GroupItem{"children",
                                            {{"audit", ChildPlacement::kParentInstance, "leaf"},
                                             {"notify", ChildPlacement::kThisWorkflow, "leaf"},
                                             {"invoice", ChildPlacement::kAnyInstance, "leaf"}}},
                         work_step("ship", 1)}});
  const std::string children = join_path("", "children");
  EXPECT_EQ(step_paths(registry, "order"),
            (std::vector<std::string>{
                join_path("", "reserve"), join_path(join_path(children, "audit"), "post"),
                join_path(join_path(children, "notify"), "post"), join_path("", "ship")}));
}

}  // namespace
}  // namespace fencesim::scenarios::step_paths_test
