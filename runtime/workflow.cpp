#include "runtime/workflow.h"

#include <fmt/format.h>

#include <stdexcept>

namespace fencesim::runtime {

std::string_view to_string(ChildPlacement placement) {
  switch (placement) {
    case ChildPlacement::kParentInstance:
      return "ParentInstance";
    case ChildPlacement::kThisWorkflow:
      return "ThisWorkflow";
    case ChildPlacement::kAnyInstance:
      return "AnyInstance";
  }
  return "unknown";
}

void WorkflowRegistry::add(Workflow workflow) {
  const std::string name = workflow.name;
  if (!workflows_.emplace(name, std::move(workflow)).second) {
    throw std::invalid_argument(fmt::format("workflow '{}' registered twice", name));
  }
}

const Workflow& WorkflowRegistry::get(const std::string& name) const {
  auto it = workflows_.find(name);
  if (it == workflows_.end()) {
    throw std::invalid_argument(fmt::format("unknown workflow '{}'", name));
  }
  return it->second;
}

}  // namespace fencesim::runtime
