// Own workflow: every tree runs the workflow it was placed with, under a lease key of its own.
// Judged from what the history says each tree was placed as (the kPlace requests the lease store
// received: a root's from the client, an AnyInstance child's from its parent's holder, naming the
// child's lease key, its workflow and its parent) and what the checkpoint store received under each
// key (kCommitStep, kCommitTree), against the workflows' definitions (the workload's data). Never
// by recomputing the runtime's child lease key, nor by the runtime's own events:
// - no lease key is placed as two trees (a root and a child, two children, two workflows): two
//   trees on one key share one lease, one epoch counter and one checkpoint, and one of them never
//   runs (nightly-mix seed 14 with children keyed parent id + "/" + path: a root named so took the
//   child's lease, ran its own steps there, and the parent went on as if its child had run);
// - every step checkpointed under a tree's key is a step of the workflow it was placed with;
// - a tree completes only with every step of its workflow checkpointed under its key;
// - a parent completes only after every child it placed completed, and it placed one lease key
//   for each AnyInstance child its workflow defines (two children on one key: one never runs).
//
// A step path is the names from the tree's top level down to the step (group, child, ..., step),
// joined by '/'. How the runtime spells a name inside a path is its own choice, which the ADR does
// not fix: a path is accepted in either spelling, the names as they are or each name
// encodeURIComponent-encoded (the oracle's own reference encoder). What is judged is which names
// it spells, not their spelling.
#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "properties/history_support.h"
#include "properties/invariants_builtin.h"
#include "properties/reference_uri.h"

namespace fencesim::properties {

using std::string_view_literals::operator""sv;

namespace {

std::string_view own_workflow_name() {
  return OwnWorkflow{}.name();
}

using Names = std::vector<std::string>;

void collect(const runtime::WorkflowRegistry& registry, const std::string& workflow, Names& prefix,
             int depth, WorkflowShape& out) {
  if (depth > 16 || !registry.contains(workflow)) return;  // the runtime cannot run it either
  for (const runtime::WorkflowItem& item : registry.get(workflow).items) {
    if (const auto* step = std::get_if<runtime::StepItem>(&item)) {
      prefix.push_back(step->name);
      out.steps.push_back(prefix);
      prefix.pop_back();
      continue;
    }
    const auto& group = std::get<runtime::GroupItem>(item);
    prefix.push_back(group.name);
    for (const runtime::ChildItem& child : group.children) {
      if (child.placement == runtime::ChildPlacement::kAnyInstance) {
        ++out.any_instance_children;  // a tree of its own: its steps are not this tree's
        continue;
      }
      prefix.push_back(child.name);
      collect(registry, child.workflow, prefix, depth + 1, out);
      prefix.pop_back();
    }
    prefix.pop_back();
  }
}

struct Placed {
  std::string workflow;
  std::optional<runtime::LeaseKey> parent;
  std::uint64_t index = 0;
};

std::string describe(const sim::NameKey& key, const Placed& placed) {
  return placed.parent
             ? fmt::format("{} (workflow '{}', child of {})", runtime::to_string(key.lease_key()),
                           placed.workflow, runtime::to_string(*placed.parent))
             : fmt::format("{} (workflow '{}', a root)", runtime::to_string(key.lease_key()),
                           placed.workflow);
}

// What the stores received, per lease key.
struct Received {
  std::map<sim::NameKey, std::vector<Placed>> placements;  // distinct (workflow, parent)
  // Looked up by key, never walked (KeyHash); the maps inside are walked, in order.
  std::unordered_map<sim::NameKey, std::map<std::string, std::uint64_t>, KeyHash> stepped;
  std::unordered_map<sim::NameKey, std::map<std::string, std::uint64_t>, KeyHash> committed;
  std::unordered_map<sim::NameKey, std::uint64_t, KeyHash> completed;
  std::unordered_map<sim::NameKey, std::map<sim::NameKey, std::uint64_t>, KeyHash> children;
};

Received read_received(const Events& events) {
  Received in;
  for (const sim::HistoryEvent& e : events) {
    if (e.world != sim::WorldEventKind::kStoreCall || !e.store) continue;
    const sim::StoreCall& call = *e.store;
    if (call.failed) continue;
    switch (call.op) {
      case sim::StoreOp::kPlace: {
        if (!is_placement(call)) break;
        std::vector<Placed>& list = in.placements[call.key];
        bool known = false;
        for (const Placed& p : list)
          known = known || (p.workflow == call.argument && p.parent == call.parent);
        if (!known) list.push_back(Placed{call.argument, call.parent, e.index});
        if (call.parent) in.children[sim::NameKey(*call.parent)].try_emplace(call.key, e.index);
        break;
      }
      case sim::StoreOp::kCommitStep:
        in.stepped[call.key].try_emplace(call.argument, e.index);
        if (call.outcome == "committed"sv) in.committed[call.key].try_emplace(call.argument, e.index);
        break;
      case sim::StoreOp::kCommitTree:
        if (call.outcome == "committed"sv) in.completed.try_emplace(call.key, e.index);
        break;
      default:
        break;
    }
  }
  return in;
}

class Judge {
 public:
  Judge(const Received& in, const ShapeLookup& shape, std::vector<Violation>& out)
      : in_(in), shape_(shape), out_(out) {}

  void shared_keys() {
    for (const auto& [key, list] : in_.placements) {
      for (std::size_t i = 1; i < list.size(); ++i) {
        out_.push_back(violation(own_workflow_name(),
                                 fmt::format("two trees were placed on one lease key: {} and {}",
                                             describe(key, list.front()), describe(key, list[i])),
                                 {list.front().index, list[i].index}));
      }
    }
  }

  // Every step that ran under `key` is one of the workflow's steps it was placed with.
  void steps_belong(const sim::NameKey& key, const Placed& placed) {
    const WorkflowShape* shape = shape_(placed.workflow);
    auto stepped = in_.stepped.find(key);
    if (shape == nullptr || stepped == in_.stepped.end()) return;
    const Spellings& own = spellings(placed.workflow, *shape);
    for (const auto& [path, index] : stepped->second) {
      if (own.all.contains(path)) continue;
      out_.push_back(violation(
          own_workflow_name(),
          fmt::format("step '{}' ran and was checkpointed under {}, but is no step of its workflow",
                      path, describe(key, placed)),
          {placed.index, index}));
      return;  // one is enough to say the tree ran another workflow
    }
  }

  // A tree that completed checkpointed every step of its workflow under its own key.
  void completed_whole(const sim::NameKey& key, const Placed& placed) {
    const WorkflowShape* shape = shape_(placed.workflow);
    auto completed = in_.completed.find(key);
    if (shape == nullptr || completed == in_.completed.end()) return;
    const auto committed = in_.committed.find(key);
    for (const auto& [plain, encoded] : spellings(placed.workflow, *shape).steps) {
      const bool found =
          committed != in_.committed.end() &&
          (committed_before(committed->second, plain, completed->second) ||
           committed_before(committed->second, encoded, completed->second));
      if (found) continue;
      out_.push_back(violation(own_workflow_name(),
                               fmt::format("{} completed, but its step '{}' was never checkpointed "
                                           "under its key",
                                           describe(key, placed), plain),
                               {placed.index, completed->second}));
      return;
    }
  }

  // A parent that completed placed one key per AnyInstance child and waited for each of them.
  void children_whole(const sim::NameKey& parent, const Placed& placed) {
    const WorkflowShape* shape = shape_(placed.workflow);
    auto completed = in_.completed.find(parent);
    if (shape == nullptr || completed == in_.completed.end()) return;
    auto children = in_.children.find(parent);
    const std::size_t keys = children == in_.children.end() ? 0 : children->second.size();
    if (keys < static_cast<std::size_t>(shape->any_instance_children)) {
      out_.push_back(
          violation(own_workflow_name(),
                    fmt::format("{} completed, its workflow defines {} AnyInstance "
                                "children, but it placed them on {} lease key(s)",
                                describe(parent, placed), shape->any_instance_children, keys),
                    {placed.index, completed->second}));
    }
    if (children == in_.children.end()) return;
    for (const auto& [child, placed_at] : children->second) {
      auto child_done = in_.completed.find(child);
      if (child_done != in_.completed.end() && child_done->second < completed->second) continue;
      out_.push_back(violation(own_workflow_name(),
                               fmt::format("{} completed before its child {} did",
                                           describe(parent, placed), runtime::to_string(child)),
                               {placed_at, completed->second}));
    }
  }

 private:
  static bool committed_before(const std::map<std::string, std::uint64_t>& committed,
                               const std::string& path, std::uint64_t before) {
    auto it = committed.find(path);
    return it != committed.end() && it->second < before;
  }

  // A workflow's step paths in both spellings (plain names, each name encoded), worked out once
  // per workflow: every tree of it is judged against them.
  struct Spellings {
    std::vector<std::pair<std::string, std::string>> steps;  // (plain, encoded), in shape order
    std::set<std::string> all;
  };
  const Spellings& spellings(const std::string& workflow, const WorkflowShape& shape) {
    auto [it, fresh] = spellings_.try_emplace(workflow);
    if (!fresh) return it->second;
    for (const Names& step : shape.steps) {
      auto& [plain, encoded] = it->second.steps.emplace_back(reference_step_path(step, false),
                                                             reference_step_path(step, true));
      it->second.all.insert(plain);
      it->second.all.insert(encoded);
    }
    return it->second;
  }

  const Received& in_;
  const ShapeLookup& shape_;
  std::vector<Violation>& out_;
  std::map<std::string, Spellings> spellings_;  // by workflow
};

}  // namespace

ShapeLookup workflow_shapes_of(const runtime::WorkflowRegistry& registry) {
  auto cache = std::make_shared<std::map<std::string, std::optional<WorkflowShape>>>();
  return [&registry, cache](const std::string& workflow) -> const WorkflowShape* {
    auto it = cache->find(workflow);
    if (it == cache->end()) {
      std::optional<WorkflowShape> shape;
      if (registry.contains(workflow)) {
        shape.emplace();
        Names prefix;
        collect(registry, workflow, prefix, 0, *shape);
      }
      it = cache->emplace(workflow, std::move(shape)).first;
    }
    return it->second ? &*it->second : nullptr;
  };
}

void check_own_workflow(const Events& events, const ShapeLookup& shape,
                        std::vector<Violation>& out) {
  const Received in = read_received(events);
  Judge judge(in, shape, out);
  judge.shared_keys();
  for (const auto& [key, list] : in.placements) {
    for (const Placed& placed : list) {
      judge.steps_belong(key, placed);
      judge.completed_whole(key, placed);
    }
    judge.children_whole(key, list.front());
  }
}

void OwnWorkflow::check(const sim::World& world, std::vector<Violation>& out) const {
  check_own_workflow(world.history().events(), workflow_shapes_of(world.workflows()), out);
}

}  // namespace fencesim::properties
