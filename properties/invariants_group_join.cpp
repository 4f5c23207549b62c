// Group join (properties/invariants_group_join.h): judged from the workflow's definition and the
// stores' records.
#include "properties/invariants_group_join.h"

#include <fmt/format.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "properties/history_support.h"
#include "properties/reference_uri.h"

namespace fencesim::properties {

using std::string_view_literals::operator""sv;

namespace {

using Names = std::vector<std::string>;

std::string_view group_join_name() {
  return GroupJoin{}.name();
}

bool starts_with(const Names& path, const Names& prefix) {
  return path.size() > prefix.size() && std::equal(prefix.begin(), prefix.end(), path.begin());
}

// One tree's workflow as the join rule reads it: each step with the groups that come before it
// (at its level or above), each group with the steps and AnyInstance children it holds (through
// its ParentInstance and ThisWorkflow children, at any depth; an AnyInstance child's own steps are
// its tree's).
// A path with its two spellings (plain names, and each name encoded), worked out once per shape:
// the join rule looks each up at every step start it judges.
struct Spelled {
  std::string plain;
  std::string encoded;
  explicit Spelled(const Names& path)
      : plain(reference_step_path(path, false)), encoded(reference_step_path(path, true)) {}
};
struct Group {
  Names path;
  std::vector<Spelled> steps;
  std::vector<Spelled> remote;
};
struct Step {
  Names path;
  std::vector<std::size_t> after;  // indices into JoinShape::groups
};
struct JoinShape {
  std::vector<Group> groups;
  std::vector<Step> steps;
  std::vector<Names> remote;
  std::map<std::string, std::size_t> step_by_spelling;  // either spelling -> index into steps
};

void collect(const runtime::WorkflowRegistry& registry, const std::string& workflow, Names& prefix,
             std::vector<std::size_t> after, int depth, JoinShape& out) {
  if (depth > 16 || !registry.contains(workflow)) return;  // the runtime cannot run it either
  for (const runtime::WorkflowItem& item : registry.get(workflow).items) {
    if (const auto* step = std::get_if<runtime::StepItem>(&item)) {
      prefix.push_back(step->name);
      out.steps.push_back(Step{prefix, after});
      prefix.pop_back();
      continue;
    }
    const auto& group = std::get<runtime::GroupItem>(item);
    prefix.push_back(group.name);
    const std::size_t index = out.groups.size();
    out.groups.push_back(Group{prefix, {}, {}});
    for (const runtime::ChildItem& child : group.children) {
      prefix.push_back(child.name);
      if (child.placement == runtime::ChildPlacement::kAnyInstance) {
        out.remote.push_back(prefix);
      } else {
        // The group's siblings run together: this group is not "before" its own children.
        collect(registry, child.workflow, prefix, after, depth + 1, out);
      }
      prefix.pop_back();
    }
    prefix.pop_back();
    after.push_back(index);
  }
}

std::shared_ptr<const JoinShape> shape_of(const runtime::WorkflowRegistry& registry,
                                          const std::string& workflow) {
  auto shape = std::make_shared<JoinShape>();
  Names prefix;
  collect(registry, workflow, prefix, {}, 0, *shape);
  for (Group& group : shape->groups) {
    for (const Step& step : shape->steps) {
      if (starts_with(step.path, group.path)) group.steps.emplace_back(step.path);
    }
    for (const Names& child : shape->remote) {
      if (starts_with(child, group.path)) group.remote.emplace_back(child);
    }
  }
  for (std::size_t i = 0; i < shape->steps.size(); ++i) {
    shape->step_by_spelling.try_emplace(reference_step_path(shape->steps[i].path, false), i);
    shape->step_by_spelling.try_emplace(reference_step_path(shape->steps[i].path, true), i);
  }
  return shape;
}

// What the history says, per tree (lease key), in the history's own names, not copies (a tree
// starts a step per pass); looked up by either spelling of a path (std::less<>: a name against a
// string, by their bytes).
struct Tree {
  sim::Name workflow;                                        // the first placement's
  std::vector<std::pair<sim::Name, std::uint64_t>> started;  // step path, kStepStarted
  std::map<sim::Name, std::uint64_t, std::less<>> committed;  // step path -> first commit
  // path -> (child scope key, event)
  std::map<sim::Name, std::vector<std::pair<sim::Name, std::uint64_t>>, std::less<>> placed;
  std::map<std::string, sim::NameKey> children;  // reference scope key -> child
};

struct Read {
  std::map<sim::NameKey, Tree> trees;
  std::map<sim::NameKey, std::uint64_t> completed;  // the store's first committed kCommitTree
};

Read read(const Events& events) {
  Read in;
  for (const sim::HistoryEvent& e : events) {
    if (e.world == sim::WorldEventKind::kStoreCall && e.store && !e.store->failed) {
      const sim::StoreCall& call = *e.store;
      if (is_placement(call)) {
        Tree& tree = in.trees[call.key];
        if (tree.workflow.empty()) tree.workflow = call.argument;
        if (call.parent)
          in.trees[sim::NameKey(*call.parent)].children.try_emplace(
              reference_scope_key(call.key.lease_key()), call.key);
      } else if (call.op == sim::StoreOp::kCommitStep && call.outcome == "committed"sv) {
        in.trees[call.key].committed.try_emplace(call.argument, e.index);
      } else if (call.op == sim::StoreOp::kCommitTree && call.outcome == "committed"sv) {
        in.completed.try_emplace(call.key, e.index);
      }
      continue;
    }
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) continue;
    if (r->kind == runtime::EventKind::kStepStarted) {
      in.trees[r->key].started.emplace_back(r->step, e.index);
    } else if (r->kind == runtime::EventKind::kChildPlaced) {
      in.trees[r->key].placed[r->step].emplace_back(r->detail, e.index);
    }
  }
  return in;
}

// The first event index of `path` (in either spelling) in `at`, if any.
template <typename Map>
auto find_either(const Map& at, const Spelled& path) {
  auto it = at.find(path.plain);
  return it != at.end() ? it : at.find(path.encoded);
}

// Why the step started at `index` came too early after `group`, or nullopt. Also the event that
// shows it (the child's completion, or none).
std::optional<std::pair<std::string, std::optional<std::uint64_t>>> too_early(const Tree& tree,
                                                                              const Read& in,
                                                                              const Group& group,
                                                                              std::uint64_t index) {
  for (const Spelled& step : group.steps) {
    auto it = find_either(tree.committed, step);
    if (it != tree.committed.end() && it->second < index) continue;
    return std::pair{
        fmt::format("its step '{}' was not checkpointed yet", step.plain),
        it != tree.committed.end() ? std::optional(it->second) : std::nullopt};
  }
  for (const Spelled& child : group.remote) {
    auto placed = find_either(tree.placed, child);
    std::optional<std::uint64_t> placed_at;
    std::optional<sim::NameKey> key;
    if (placed != tree.placed.end()) {
      for (const auto& [scope_key, at] : placed->second) {
        if (at > index) break;
        placed_at = at;
        auto known = tree.children.find(scope_key);
        if (known != tree.children.end()) key = known->second;
      }
    }
    if (!placed_at) {
      return std::pair{fmt::format("its AnyInstance child '{}' was not placed yet", child.plain),
                       std::nullopt};
    }
    // A placement whose scope key is no key the lease store placed for this parent cannot be
    // followed to its child's tree here (scope-key-injective and own-workflow judge it).
    if (!key) continue;
    auto done = in.completed.find(*key);
    if (done != in.completed.end() && done->second < index) continue;
    return std::pair{fmt::format("its AnyInstance child '{}' ({}) had not completed",
                                 child.plain, runtime::to_string(key->lease_key())),
                     done != in.completed.end() ? std::optional(done->second) : *placed_at};
  }
  return std::nullopt;
}

}  // namespace

void check_group_join(const Events& events, const runtime::WorkflowRegistry& workflows,
                      std::vector<Violation>& out) {
  const Read in = read(events);
  std::map<std::string, std::shared_ptr<const JoinShape>> shapes;
  for (const auto& [key, tree] : in.trees) {
    if (tree.workflow.empty() || tree.started.empty()) continue;
    auto& shape = shapes[tree.workflow];
    if (!shape) shape = shape_of(workflows, tree.workflow);
    std::set<std::size_t> reported;  // one violation per step of a tree
    for (const auto& [path, index] : tree.started) {
      auto step = shape->step_by_spelling.find(path);
      if (step == shape->step_by_spelling.end() || reported.contains(step->second)) continue;
      for (const std::size_t g : shape->steps[step->second].after) {
        const Group& group = shape->groups[g];
        const auto why = too_early(tree, in, group, index);
        if (!why) continue;
        std::vector<std::uint64_t> shown{index};
        if (why->second) shown.push_back(*why->second);
        out.push_back(violation(
            group_join_name(),
            fmt::format("step '{}' of {} (workflow '{}') started after group '{}', but {}", path,
                        runtime::to_string(key), tree.workflow,
                        reference_step_path(group.path, false), why->first),
            std::move(shown)));
        reported.insert(step->second);
        break;
      }
    }
  }
}

void GroupJoin::check(const sim::World& world, std::vector<Violation>& out) const {
  check_group_join(world.history().events(), world.workflows(), out);
}

}  // namespace fencesim::properties
