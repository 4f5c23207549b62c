#include "scenarios/spec_topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>

#include "scenarios/order_workflow.h"
#include "scenarios/spec_lists.h"
#include "scenarios/unchecked_system.h"
#include "scenarios/window_workload.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios::spec {

const std::vector<StepKindKeys>& step_kinds() {
  static const std::vector<StepKindKeys> kKinds{
      {"work", {"kind", "name", "duration"}},
      {"write", {"kind", "name", "duration", "sink", "effect", "payload"}},
      {"busy-write", {"kind", "name", "duration", "sink", "other_sink"}},
      {"confirm-call", {"kind", "name", "duration"}},
      {"group", {"kind", "name", "children"}}};
  return kKinds;
}

namespace {

// Workflows a spec's trees and groups may name without declaring them.
const std::set<std::string>& registered_workflows() {
  static const std::set<std::string> kNames{"order"};
  return kNames;
}

const toml::array* tables(const SpecReader& reader, const toml::table& document,
                          std::string_view key) {
  const toml::node* node = document.get(key);
  if (node == nullptr) return nullptr;
  const auto* array = node->as_array();
  if (array == nullptr || !array->is_array_of_tables()) {
    reader.fail(*node, key, fmt::format("must be an array of tables: write each as [[{}]]", key));
  }
  return array;
}

std::string required_string(const SpecReader& reader, const toml::table& table,
                            std::string_view prefix, std::string_view name) {
  const std::string key = fmt::format("{}{}", prefix, name);
  const toml::node* node = table.get(name);
  if (node == nullptr) reader.fail(table, key, "missing");
  return reader.string(*node, key);
}

std::int64_t optional_duration(const SpecReader& reader, const toml::table& table,
                               std::string_view prefix, std::string_view name) {
  const toml::node* node = table.get(name);
  return node == nullptr ? 0 : reader.duration(*node, fmt::format("{}{}", prefix, name), 0);
}

runtime::ChildPlacement placement_of(const SpecReader& reader, const toml::node& node) {
  const std::string text = reader.string(node, "[[workflow]].steps.children.placement");
  if (text == "parent-instance") return runtime::ChildPlacement::kParentInstance;
  if (text == "this-workflow") return runtime::ChildPlacement::kThisWorkflow;
  if (text == "any-instance") return runtime::ChildPlacement::kAnyInstance;
  reader.fail(node, "[[workflow]].steps.children.placement",
              fmt::format("'{}' is not parent-instance, this-workflow or any-instance", text));
}

ItemSpec read_item(const SpecReader& reader, const toml::table& table,
                   const std::set<std::string>& sinks) {
  constexpr std::string_view kPrefix = "[[workflow]].steps.";
  ItemSpec item;
  const std::string kind = required_string(reader, table, kPrefix, "kind");
  if (kind == "group") {
    reader.only_keys(table, kPrefix, {"kind", "name", "children"});
    item.group = true;
    item.group_name = required_string(reader, table, kPrefix, "name");
    const toml::node* children = table.get("children");
    if (children == nullptr || children->as_array() == nullptr ||
        !children->as_array()->is_array_of_tables() || children->as_array()->empty()) {
      reader.fail(table, "[[workflow]].steps.children", "a group needs an array of children");
    }
    std::set<std::string> names;
    for (const toml::node& element : *children->as_array()) {
      const toml::table& child = *element.as_table();
      constexpr std::string_view kChild = "[[workflow]].steps.children.";
      reader.only_keys(child, kChild, {"name", "placement", "workflow"});
      const toml::node* placement = child.get("placement");
      if (placement == nullptr)
        reader.fail(child, "[[workflow]].steps.children.placement", "missing");
      item.children.push_back(ChildSpec{required_string(reader, child, kChild, "name"),
                                        placement_of(reader, *placement),
                                        required_string(reader, child, kChild, "workflow")});
      // Told here with its line, before the runtime's registry refuses the workflow.
      if (!names.insert(item.children.back().name).second) {
        reader.fail(child, "[[workflow]].steps.children.name",
                    fmt::format("two children of group '{}' are named '{}': siblings share a "
                                "path (and an AnyInstance child's lease key) unless named apart",
                                item.group_name, item.children.back().name));
      }
    }
    return item;
  }
  const auto keys = std::find_if(step_kinds().begin(), step_kinds().end(),
                                 [&](const StepKindKeys& each) { return each.kind == kind; });
  if (keys == step_kinds().end()) {
    std::string known;
    for (const StepKindKeys& each : step_kinds()) {
      known += (known.empty() ? "" : ", ") + std::string(each.kind);
    }
    reader.fail(*table.get("kind"), "[[workflow]].steps.kind",
                fmt::format("unknown step kind '{}' (known: {})", kind, known));
  }
  for (const auto& [key, value] : table) {
    bool known = false;
    for (std::string_view name : keys->keys) known = known || name == key.str();
    if (known) continue;
    // A key of another kind is misplaced; one of no kind is misspelled: say which.
    bool of_another_kind = false;
    for (const StepKindKeys& other : step_kinds()) {
      for (std::string_view name : other.keys) {
        of_another_kind = of_another_kind || name == key.str();
      }
    }
    std::string list;
    for (std::string_view name : keys->keys) list += (list.empty() ? "" : ", ") + std::string(name);
    reader.note(key.source().begin.line, fmt::format("{}{}", kPrefix, key.str()),
                of_another_kind
                    ? fmt::format("not used by a '{}' step (its keys: {})", kind, list)
                    : fmt::format("unknown key (known for a '{}' step: {})", kind, list));
  }
  StepSpec& step = item.step;
  step.kind = kind;
  step.name = required_string(reader, table, kPrefix, "name");
  step.duration_ns = optional_duration(reader, table, kPrefix, "duration");
  auto sink = [&](std::string_view name) {
    const std::string value = required_string(reader, table, kPrefix, name);
    if (!sinks.contains(value)) {
      reader.fail(*table.get(name), fmt::format("{}{}", kPrefix, name),
                  fmt::format("unknown sink '{}' (declare it as [[sink]])", value));
    }
    return value;
  };
  if (kind == "write" || kind == "busy-write") step.sink = sink("sink");
  if (kind == "busy-write") step.other_sink = sink("other_sink");
  step.effect = step.name;
  step.payload = step.name;
  if (const toml::node* node = table.get("effect")) step.effect = reader.string(*node, "effect");
  if (const toml::node* node = table.get("payload")) step.payload = reader.string(*node, "payload");
  return item;
}

// A workflow whose children lead back to itself would place children for ever.
void check_no_cycle(const SpecReader& reader, const Topology& topology, std::uint32_t line) {
  std::map<std::string, const WorkflowSpec*> by_name;
  for (const WorkflowSpec& workflow : topology.workflows) by_name[workflow.name] = &workflow;
  std::set<std::string> done;
  std::vector<std::string> path;
  std::function<void(const std::string&)> visit = [&](const std::string& name) {
    if (done.contains(name) || !by_name.contains(name)) return;
    for (const std::string& on_path : path) {
      if (on_path == name) {
        reader.fail(line, "[[workflow]]", fmt::format("workflow '{}' contains itself", name));
      }
    }
    path.push_back(name);
    for (const ItemSpec& item : by_name[name]->items) {
      for (const ChildSpec& child : item.children) visit(child.workflow);
    }
    path.pop_back();
    done.insert(name);
  };
  for (const WorkflowSpec& workflow : topology.workflows) visit(workflow.name);
}

// One [[workflow]]: kept in `topology` only when all of it reads (its errors are kept).
void read_workflow(const SpecReader& reader, const toml::table& table,
                   const std::set<std::string>& sinks, std::set<std::string>& names,
                   Topology& topology) {
  reader.only_keys(table, "[[workflow]].", {"name", "steps"});
  WorkflowSpec workflow{required_string(reader, table, "[[workflow]].", "name"), {}};
  if (!names.insert(workflow.name).second) {
    reader.fail(table, "[[workflow]].name",
                fmt::format("workflow '{}' is declared twice or registered", workflow.name));
  }
  const toml::array* steps = tables(reader, table, "steps");
  if (steps == nullptr || steps->empty()) {
    reader.fail(table, "[[workflow]].steps", "a workflow needs at least one step");
  }
  bool whole = true;
  std::set<std::string> item_names;
  for (const toml::node& step : *steps) {
    const std::size_t before = reader.error_count();
    whole = reader.attempt([&] {
      ItemSpec item = read_item(reader, *step.as_table(), sinks);
      const std::string& item_name = item.group ? item.group_name : item.step.name;
      if (reader.error_count() == before && !item_names.insert(item_name).second) {
        reader.fail(*step.as_table(), "[[workflow]].steps.name",
                    fmt::format("two steps or groups of workflow '{}' are named '{}': siblings "
                                "share a path (a checkpoint, idempotency keys) unless named apart",
                                workflow.name, item_name));
      }
      if (reader.error_count() == before) workflow.items.push_back(std::move(item));
    }) && reader.error_count() == before && whole;
  }
  // A workflow with a step in error is left out: what refers to it is still checked.
  if (whole) topology.workflows.push_back(std::move(workflow));
}

void read_workflows(const SpecReader& reader, const toml::table& document, Topology& topology) {
  const std::set<std::string> sinks(topology.sinks.begin(), topology.sinks.end());
  const toml::array* workflows = tables(reader, document, "workflow");
  std::uint32_t first_line = 1;
  if (workflows == nullptr) return;
  std::set<std::string> names = registered_workflows();
  for (const toml::node& element : *workflows) {
    const toml::table& table = *element.as_table();
    if (first_line == 1) first_line = table.source().begin.line;
    reader.attempt([&] { read_workflow(reader, table, sinks, names, topology); });
  }
  for (const WorkflowSpec& workflow : topology.workflows) {
    for (const ItemSpec& item : workflow.items) {
      for (const ChildSpec& child : item.children) {
        if (!names.contains(child.workflow)) {
          reader.fail(
              first_line, "[[workflow]].steps.children.workflow",
              fmt::format("unknown workflow '{}' (in '{}')", child.workflow, workflow.name));
        }
      }
    }
  }
  check_no_cycle(reader, topology, first_line);
}

void read_nodes(const SpecReader& reader, const toml::table& document, Topology& topology) {
  std::set<std::string> names{"lease-store"};
  auto unique = [&](const toml::table& table, std::string_view prefix) {
    const std::string name = required_string(reader, table, prefix, "name");
    if (name.empty() || !names.insert(name).second) {
      reader.fail(*table.get("name"), fmt::format("{}name", prefix),
                  fmt::format("'{}' is empty or names another node", name));
    }
    return name;
  };
  if (const toml::array* sinks = tables(reader, document, "sink")) {
    for (const toml::node& element : *sinks) {
      reader.only_keys(*element.as_table(), "[[sink]].", {"name"});
      reader.attempt([&] { topology.sinks.push_back(unique(*element.as_table(), "[[sink]].")); });
    }
  }
  if (const toml::array* instances = tables(reader, document, "instance")) {
    for (const toml::node& element : *instances) {
      const toml::table& table = *element.as_table();
      reader.only_keys(table, "[[instance]].", {"name", "start"});
      reader.attempt([&] {
        const std::string name = unique(table, "[[instance]].");
        topology.instances.emplace_back(
            name, optional_duration(reader, table, "[[instance]].", "start"));
      });
    }
  }
  if (topology.instances.empty() && !document.contains("instance")) {
    reader.fail(1, "[[instance]]", "a topology needs an instance");
  }
}

void read_tree(const SpecReader& reader, const toml::table& table, Topology& topology,
               const std::set<std::string>& workflows, std::set<runtime::LeaseKey>& keys) {
  constexpr std::string_view kPrefix = "[[tree]].";
  TreeSpec tree{required_string(reader, table, kPrefix, "tenant"),
                required_string(reader, table, kPrefix, "execution"),
                required_string(reader, table, kPrefix, "workflow"),
                optional_duration(reader, table, kPrefix, "at")};
  if (const toml::node* cancel = table.get("cancel")) {
    tree.cancel = reader.duration_range(*cancel, "[[tree]].cancel", 0);
  }
  if (!workflows.contains(tree.workflow)) {
    reader.fail(*table.get("workflow"), "[[tree]].workflow",
                fmt::format("unknown workflow '{}' (declare it as [[workflow]], or use one "
                            "registered: order)",
                            tree.workflow));
  }
  if (tree.workflow == "order" && std::find(topology.sinks.begin(), topology.sinks.end(),
                                            "payments") == topology.sinks.end()) {
    reader.fail(*table.get("workflow"), "[[tree]].workflow",
                "the registered workflow 'order' writes to a sink named 'payments'");
  }
  if (!keys.insert(runtime::LeaseKey{tree.tenant, tree.execution}).second) {
    reader.fail(table, "[[tree]]", "two trees with the same tenant and execution");
  }
  topology.trees.push_back(std::move(tree));
}

}  // namespace

bool has_topology(const toml::table& document) {
  for (std::string_view key : {"instance", "sink", "workflow", "tree"}) {
    if (document.contains(key)) return true;
  }
  return false;
}

Topology read_topology(const SpecReader& reader, const toml::table& document) {
  Topology topology;
  reader.attempt([&] { read_nodes(reader, document, topology); });
  reader.attempt([&] { read_workflows(reader, document, topology); });
  std::set<std::string> workflows = registered_workflows();
  for (const WorkflowSpec& workflow : topology.workflows) workflows.insert(workflow.name);
  // A workflow declared with an error of its own is reported once, not again by each tree on it.
  if (const toml::node* declared = document.get("workflow"); declared && declared->as_array()) {
    for (const toml::node& element : *declared->as_array()) {
      const toml::table* table = element.as_table();
      const toml::node* name = table ? table->get("name") : nullptr;
      if (name && name->as_string()) workflows.insert(name->as_string()->get());
    }
  }
  const toml::array* trees = tables(reader, document, "tree");
  if (trees == nullptr) reader.fail(1, "[[tree]]", "a topology needs a tree");
  std::set<runtime::LeaseKey> keys;
  for (const toml::node& element : *trees) {
    const toml::table& table = *element.as_table();
    constexpr std::string_view kPrefix = "[[tree]].";
    reader.only_keys(table, kPrefix, {"tenant", "execution", "workflow", "at", "cancel"});
    reader.attempt([&] { read_tree(reader, table, topology, workflows, keys); });
  }
  return topology;
}


namespace {

runtime::StepItem make_step(sim::World& world, const StepSpec& spec,
                            const std::shared_ptr<UncheckedSystem>& system) {
  if (spec.kind == "work") return work_step(spec.name, spec.duration_ns);
  if (spec.kind == "busy-write") {
    return busy_write_step(world, spec.name, spec.duration_ns, spec.sink, spec.other_sink, system);
  }
  if (spec.kind == "confirm-call") {
    return runtime::StepItem{spec.name,
                             [system, duration = spec.duration_ns](runtime::ExecutionContext& ctx) {
                               if (system->confirm(ctx)) system->call(ctx, duration);
                             }};
  }
  return runtime::StepItem{spec.name, [&world, spec](runtime::ExecutionContext& ctx) {
                             ctx.env().sleep(spec.duration_ns);
                             write_effect(world, ctx, spec.sink, spec.effect, spec.payload);
                           }};
}

}  // namespace

void build_topology(const Topology& topology, sim::World& world) {
  world.add_lease_store();
  for (const std::string& sink : topology.sinks) world.add_sink(sink);
  for (const auto& [name, start_ns] : topology.instances) world.add_instance(name, start_ns);
  sim::Rng workload = world.stream("workload");
  auto system = std::make_shared<UncheckedSystem>(world);
  for (const std::string& name : registered_workflows()) {
    bool used = false;
    for (const TreeSpec& tree : topology.trees) used = used || tree.workflow == name;
    for (const WorkflowSpec& workflow : topology.workflows) {
      for (const ItemSpec& item : workflow.items) {
        for (const ChildSpec& child : item.children) used = used || child.workflow == name;
      }
    }
    if (used && name == "order") world.workflows().add(order_workflow(world, workload));
  }
  for (const WorkflowSpec& spec : topology.workflows) {
    runtime::Workflow workflow{spec.name, {}};
    for (const ItemSpec& item : spec.items) {
      if (!item.group) {
        workflow.items.push_back(make_step(world, item.step, system));
        continue;
      }
      runtime::GroupItem group{item.group_name, {}};
      for (const ChildSpec& child : item.children) {
        group.children.push_back(runtime::ChildItem{child.name, child.placement, child.workflow});
      }
      workflow.items.push_back(std::move(group));
    }
    world.workflows().add(std::move(workflow));
  }
  // The cancels' own stream, drawn in the trees' order: a spec that adds a cancel to one tree
  // moves no other draw of the run (the workload's, the faults').
  sim::Rng cancels = world.stream("spec-cancels");
  for (const TreeSpec& tree : topology.trees) {
    const runtime::LeaseKey key{tree.tenant, tree.execution};
    world.submit(key, tree.workflow, tree.at_ns);
    if (tree.cancel) {
      world.cancel_at(tree.at_ns + cancels.between(tree.cancel->low, tree.cancel->high), key);
    }
  }
}

}  // namespace fencesim::scenarios::spec
