#include "runtime/workflow.h"

#include <fmt/format.h>

#include <set>
#include <stdexcept>

#include "runtime/scope_key.h"

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

namespace {

// Throws std::invalid_argument when two of `names` are equal. The message shows each name as its
// path part (encoded: a name may hold a NUL byte or a line break) and says what they would share.
void refuse_same_named(const std::string& workflow, const std::vector<std::string_view>& names,
                       std::string_view where) {
  std::set<std::string_view> seen;
  for (const std::string_view name : names) {
    if (seen.insert(name).second) continue;
    throw std::invalid_argument(fmt::format(
        "workflow '{}' names two {} '{}' (names shown as their path parts): siblings must be "
        "named apart, since a step's path, its checkpoint and idempotency keys and an "
        "AnyInstance child's lease key are made of the names (ADR-0023)",
        encode_uri_component(workflow), where, encode_uri_component(name)));
  }
}

// Throws std::invalid_argument for an empty name. A path joins its levels' names with '/', and a
// tree's own level has the empty path: a group named "" would give its child "x" the path "x", the
// path of a step "x" beside the group, and a step named "" the path of its tree.
void refuse_empty_named(const std::string& workflow, const std::vector<std::string_view>& names,
                        const std::string& where) {
  for (const std::string_view name : names) {
    if (!name.empty()) continue;
    throw std::invalid_argument(fmt::format(
        "workflow '{}' has an empty name among its {}: a path part must name one item, and an "
        "empty one would share its paths with its level's (ADR-0023)",
        encode_uri_component(workflow), where));
  }
}

void refuse_same_named_siblings(const Workflow& workflow) {
  std::vector<std::string_view> items;
  for (const WorkflowItem& item : workflow.items) {
    if (const auto* step = std::get_if<StepItem>(&item)) {
      items.push_back(step->name);
      continue;
    }
    const auto& group = std::get<GroupItem>(item);
    items.push_back(group.name);
    std::vector<std::string_view> children;
    for (const ChildItem& child : group.children) children.push_back(child.name);
    const std::string where =
        fmt::format("children of group '{}'", encode_uri_component(group.name));
    refuse_empty_named(workflow.name, children, where);
    refuse_same_named(workflow.name, children, where);
  }
  // A group's name is its children's path prefix: a step and a group of one name are refused
  // too, so that a path part names one item of its level.
  refuse_empty_named(workflow.name, items, "items (steps or groups) of its level");
  refuse_same_named(workflow.name, items, "items (steps or groups) of its level");
}

}  // namespace

void WorkflowRegistry::add(Workflow workflow) {
  const std::string name = workflow.name;
  refuse_same_named_siblings(workflow);
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
