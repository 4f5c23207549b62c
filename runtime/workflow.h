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
  void add(Workflow workflow);
  // Throws std::invalid_argument for an unknown name.
  const Workflow& get(const std::string& name) const;
  bool contains(const std::string& name) const { return workflows_.contains(name); }

 private:
  std::map<std::string, Workflow> workflows_;
};

}  // namespace fencesim::runtime
