#pragma once
// A workflow is a sequence of items: steps, and groups of children. Steps run at least once; each
// step's completion is checkpointed. Children run by placement (ADR-0023):
// - ParentInstance: on this instance, under the root's lease, as concurrent branches;
// - ThisWorkflow: a nested level of this workflow, inline, under the root's lease;
// - AnyInstance: placed on the queue for any instance, with a lease (and so an epoch) of its own;
//   the parent waits for them (the remote-children wait).
#include <functional>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace fencesim::runtime {

class ExecutionContext;
using StepBody = std::function<void(ExecutionContext&)>;

enum class ChildPlacement { kParentInstance, kThisWorkflow, kAnyInstance };
std::string_view to_string(ChildPlacement placement);

struct StepItem {
  std::string name;
  StepBody body;
};

struct ChildItem {
  std::string name;
  ChildPlacement placement;
  std::string workflow;  // name in the registry
};

struct GroupItem {
  std::string name;
  std::vector<ChildItem> children;
};

using WorkflowItem = std::variant<StepItem, GroupItem>;

struct Workflow {
  std::string name;
  std::vector<WorkflowItem> items;
};

// The deployed code: every instance has the same registry.
class WorkflowRegistry {
 public:
  // Registers `workflow`. Throws std::invalid_argument, registering nothing, for a name already
  // registered and for a workflow that names two siblings alike: two items of its own level (steps
  // or groups) or two children of one group. A step's path is made of its names (join_path), and
  // so are its checkpoint entry, its idempotency keys and an AnyInstance child's lease key: two
  // same-named siblings would share them (the second step skipped as committed, the second
  // AnyInstance child never placed, two branches writing under one key). ADR-0023 names a lease
  // and an effect by that path, so such a workflow has no faithful run and is refused here, before
  // any tree of it starts, rather than half-way through a pass.
  void add(Workflow workflow);
  // Throws std::invalid_argument for an unknown name.
  const Workflow& get(const std::string& name) const;
  bool contains(const std::string& name) const { return workflows_.contains(name); }

 private:
  std::map<std::string, Workflow> workflows_;
};

}  // namespace fencesim::runtime
