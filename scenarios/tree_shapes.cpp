#include "scenarios/tree_shapes.h"

#include <fmt/format.h>

#include <optional>
#include <stdexcept>

#include "runtime/check.h"
#include "runtime/tree_runner.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios {

using runtime::ChildPlacement;
using runtime::ExecutionContext;
using runtime::kMillisecond;
using runtime::kSecond;

namespace {

// Groups nest at most this deep (a workflow at depth kMaxDepth has steps only).
constexpr int kMaxDepth = 3;

// A step that writes its effect, then asks for a withdrawal of its own path on another instance
// and lingers: the withdrawal meets the step still running, or just ended (its checkpoint in
// flight, the next step). `counter` makes every asked withdrawal's effect distinct in the run.
runtime::StepItem write_then_withdraw_step(const TreeParts& parts, std::string name,
                                           runtime::Nanoseconds duration, std::string sink,
                                           std::string other_sink, std::size_t instance,
                                           runtime::Nanoseconds delay,
                                           std::shared_ptr<int> counter) {
  sim::World* world = parts.world;
  std::vector<DeclaredEffect> effects{{sink, "write"}};  // before `sink` moves into the body
  return declared_step(std::move(name), std::move(effects),
                       [world, watch = parts.probes->watch, instances = parts.instances, duration,
                        delay, instance, sink = std::move(sink), other_sink = std::move(other_sink),
                        counter = std::move(counter)](ExecutionContext& ctx) {
                         ctx.env().sleep(duration);
                         write_effect(*world, ctx, sink, "write", "write");
                         const int n = (*counter)++;
                         world->withdraw_at(
                             world->scheduler().now_ns() + delay,
                             instances[(instance + static_cast<std::size_t>(n)) % instances.size()],
                             ctx.tree_key(), ctx.path(),
                             withdrawal_body(*world, watch, ctx.path(), other_sink,
                                             fmt::format("own-withdrawal-{}", n)));
                         ctx.env().sleep(400 * kMillisecond);
                       });
}

class TreeDrawer {
 public:
  TreeDrawer(const TreeParts& parts, sim::Rng& rng, HostileNames& names, std::string prefix)
      : parts_(parts), rng_(rng), names_(names), prefix_(std::move(prefix)) {
    // A small pool per tree: most names below are taken from it, so they repeat across groups
    // and depths.
    static constexpr const char* kPlain[] = {"step", "sync", "fan", "job", "check", "remote"};
    const auto size = rng_.between(3, 5);
    for (std::int64_t i = 0; i < size; ++i) {
      pool_.push_back(names_.name(kPlain[rng_.below(std::size(kPlain))], prefix_ + "/pool"));
    }
  }

  DrawnTree draw() {
    DrawnTree tree;
    tree.workflow = draw_workflow(0, false, &tree.top_children);
    tree.same_named_refused = same_named_refused_;
    tree.empty_named_refused = empty_named_refused_;
    return tree;
  }

 private:
  // A name for a new item of a level (or child of a group) that already holds `taken`: from the
  // pool mostly, else fresh; never one of `taken`.
  std::string name_in(std::set<std::string>& taken, const char* plain) {
    std::string name = rng_.chance(0.75) ? pool_[rng_.below(pool_.size())]
                                         : names_.name(plain, prefix_ + "/fresh");
    while (!taken.insert(name).second) name = names_.name(plain, prefix_ + "/fresh");
    return name;
  }

  runtime::Nanoseconds duration() { return rng_.between(100, 3'000) * kMillisecond; }
  const std::string& sink() { return parts_.sinks[rng_.below(parts_.sinks.size())]; }

  runtime::StepItem draw_step(std::string name) {
    --steps_left_;
    sim::World& world = *parts_.world;
    const std::uint64_t kind = rng_.below(10);
    if (kind < 2) return work_step(std::move(name), duration());
    if (kind < 5) return write_step(world, std::move(name), duration(), sink(), "tree write");
    if (kind < 8) {
      const std::string& first = sink();
      return busy_write_step(world, std::move(name), duration(), first, sink(), parts_.system);
    }
    const std::string& first = sink();
    const std::string& other = sink();
    const std::size_t instance = rng_.below(parts_.instances.size());
    const runtime::Nanoseconds delay = rng_.between(0, 600) * kMillisecond;
    return write_then_withdraw_step(parts_, std::move(name), duration(), first, other, instance,
                                    delay, counter_);
  }

  runtime::ChildItem draw_child(std::set<std::string>& taken, ChildPlacement placement, int depth) {
    std::string name = name_in(taken, "child");
    return runtime::ChildItem{std::move(name), placement, draw_workflow(depth + 1, false, nullptr)};
  }

  // A group of two or three children of drawn placements; most have both a ParentInstance and an
  // AnyInstance child, side by side.
  runtime::GroupItem draw_group(std::set<std::string>& level, int depth) {
    runtime::GroupItem group{name_in(level, "group"), {}};
    std::set<std::string> taken;
    const auto count = depth >= 2 ? 2 : rng_.between(2, 3);
    for (std::int64_t i = 0; i < count; ++i) {
      const std::uint64_t p = rng_.below(10);
      const ChildPlacement placement = p < 4   ? ChildPlacement::kParentInstance
                                       : p < 8 ? ChildPlacement::kAnyInstance
                                               : ChildPlacement::kThisWorkflow;
      group.children.push_back(draw_child(taken, placement, depth));
    }
    if (rng_.chance(0.8)) mix(group);
    return group;
  }

  // Makes `group` hold a ParentInstance and an AnyInstance child.
  static void mix(runtime::GroupItem& group) {
    auto has = [&group](ChildPlacement placement) {
      for (const runtime::ChildItem& child : group.children) {
        if (child.placement == placement) return true;
      }
      return false;
    };
    if (!has(ChildPlacement::kParentInstance)) {
      group.children.front().placement = ChildPlacement::kParentInstance;
    }
    if (!has(ChildPlacement::kAnyInstance)) {
      group.children.back().placement = ChildPlacement::kAnyInstance;
    }
  }

  // A fan: two or three ParentInstance branches running one drawn workflow that holds a mixed
  // group, so that the branches wait on remote children at once and every name inside them
  // repeats; now and then an AnyInstance child beside them, named from the pool too.
  runtime::GroupItem draw_fan(std::set<std::string>& level, int depth) {
    runtime::GroupItem group{name_in(level, "fan"), {}};
    std::set<std::string> taken;
    const std::string branch = draw_workflow(depth + 1, true, nullptr);
    const auto count = rng_.between(2, 3);
    for (std::int64_t i = 0; i < count; ++i) {
      group.children.push_back({name_in(taken, "branch"), ChildPlacement::kParentInstance, branch});
    }
    if (rng_.chance(0.5)) {
      group.children.push_back(draw_child(taken, ChildPlacement::kAnyInstance, depth));
    }
    return group;
  }

  // A workflow of depth `depth`: its name in the registry. `with_mixed_group`: it holds a group of
  // mixed placements. `top_children`: where the paths of its AnyInstance children go (the root).
  std::string draw_workflow(int depth, bool with_mixed_group,
                            std::vector<std::string>* top_children) {
    runtime::Workflow workflow{fmt::format("{}.{}", prefix_, ++workflows_), {}};
    if (depth == 0) workflow.name = prefix_;
    std::set<std::string> level;
    const bool may_group = depth < kMaxDepth && workflows_ < kMaxWorkflows;
    auto count = depth == 0 ? rng_.between(2, 4) : rng_.between(1, 3);
    if (steps_left_ <= 0) count = 1;
    bool grouped = false;
    for (std::int64_t i = 0; i < count; ++i) {
      const double group_chance = depth == 0 ? 0.5 : 0.3;
      if (may_group && rng_.chance(group_chance)) {
        workflow.items.push_back(depth == 0 && !grouped && rng_.chance(0.6)
                                     ? draw_fan(level, depth)
                                     : draw_group(level, depth));
        grouped = true;
      } else {
        workflow.items.push_back(draw_step(name_in(level, "step")));
      }
    }
    if ((with_mixed_group || depth == 0) && !grouped && may_group) {
      // The root always has a group (a fan, mostly) and a step after it: the join is judged.
      auto group =
          depth == 0 && rng_.chance(0.6) ? draw_fan(level, depth) : draw_group(level, depth);
      workflow.items.insert(
          workflow.items.begin() + static_cast<std::ptrdiff_t>(rng_.below(workflow.items.size())),
          std::move(group));
    }
    if (with_mixed_group) {
      for (runtime::WorkflowItem& item : workflow.items) {
        if (auto* group = std::get_if<runtime::GroupItem>(&item)) {
          mix(*group);
          break;
        }
      }
    }
    if (depth == 0 && std::holds_alternative<runtime::GroupItem>(workflow.items.back())) {
      workflow.items.push_back(draw_step(name_in(level, "step")));
    }
    if (top_children != nullptr) {
      for (const runtime::WorkflowItem& item : workflow.items) {
        const auto* group = std::get_if<runtime::GroupItem>(&item);
        if (group == nullptr) continue;
        for (const runtime::ChildItem& child : group->children) {
          if (child.placement != ChildPlacement::kAnyInstance) continue;
          top_children->push_back(
              runtime::join_path(runtime::join_path("", group->name), child.name));
        }
      }
    }
    std::string name = workflow.name;
    deploy(probed(parts_.probes, std::move(workflow)));
    return name;
  }

  // Registers `workflow`, and now and then (from a stream of its own, so that no other draw
  // moves) first offers the registry a twin of it that names two siblings alike (issue 29 item 5:
  // the names above are unique among siblings, so no run ever met a workflow whose two steps or
  // children share a path). The runtime must refuse the twin (runtime/workflow.h), and the drawn
  // workflow is registered instead; a runtime that accepts the twin deploys it, and its trees run
  // with two siblings on one path, where siblings-named-apart and exactly-once judge them.
  // Now and then (from a stream of its own again) the twin offered is one with an item or child
  // named '' instead (its path would be its level's or its group's; the registry must refuse it
  // too: red team 45c-12, a registry that took empty names, passed every sweep).
  void deploy(runtime::Workflow workflow) {
    runtime::WorkflowRegistry& registry = parts_.world->workflows();
    if (twins_.chance(kTwinShare)) {
      if (std::optional<runtime::Workflow> twin = with_same_named_siblings(workflow, twins_)) {
        if (offered(registry, std::move(*twin))) return;
        ++same_named_refused_;
      }
    }
    if (empty_named_.chance(kEmptyNamedShare)) {
      if (offered(registry, with_an_empty_name(workflow, empty_named_))) return;
      ++empty_named_refused_;
    }
    registry.add(std::move(workflow));
  }

  // Offers `twin` to the registry; true if it was accepted (deployed in the drawn one's place).
  static bool offered(runtime::WorkflowRegistry& registry, runtime::Workflow twin) {
    try {
      registry.add(std::move(twin));
    } catch (const std::invalid_argument&) {
      return false;
    }
    return true;
  }

  static constexpr int kMaxWorkflows = 10;
  // The share of drawn workflows offered first as a twin with two siblings named alike, and of
  // the rest as one with a name made empty.
  static constexpr double kTwinShare = 0.2;
  static constexpr double kEmptyNamedShare = 0.1;

  const TreeParts& parts_;
  sim::Rng& rng_;
  HostileNames& names_;
  std::string prefix_;
  std::vector<std::string> pool_;
  int workflows_ = 0;
  int same_named_refused_ = 0;
  int empty_named_refused_ = 0;
  int steps_left_ = 20;
  std::shared_ptr<int> counter_ = std::make_shared<int>(0);
  sim::Rng twins_ = parts_.world->stream("same-named-siblings " + prefix_);
  sim::Rng empty_named_ = parts_.world->stream("empty-named-item " + prefix_);
};

}  // namespace

// Draws, from `draws`, the level (the workflow's items, or one group's children) and the two
// siblings of it, in that order: the tree drawer's stream of twins depends on this order.
std::optional<runtime::Workflow> with_same_named_siblings(const runtime::Workflow& workflow,
                                                          sim::Rng& draws) {
  runtime::Workflow twin = workflow;
  // The levels with two siblings or more: the workflow's items (-1), or a group (its index).
  std::vector<std::ptrdiff_t> levels;
  if (twin.items.size() >= 2) levels.push_back(-1);
  for (std::size_t i = 0; i < twin.items.size(); ++i) {
    const auto* group = std::get_if<runtime::GroupItem>(&twin.items[i]);
    if (group != nullptr && group->children.size() >= 2) {
      levels.push_back(static_cast<std::ptrdiff_t>(i));
    }
  }
  if (levels.empty()) return std::nullopt;
  const std::ptrdiff_t level = levels[draws.below(levels.size())];
  std::vector<std::string*> names;
  if (level < 0) {
    for (runtime::WorkflowItem& item : twin.items) {
      std::visit([&names](auto& it) { names.push_back(&it.name); }, item);
    }
  } else {
    for (runtime::ChildItem& child :
         std::get<runtime::GroupItem>(twin.items[static_cast<std::size_t>(level)]).children) {
      names.push_back(&child.name);
    }
  }
  const std::size_t from = draws.below(names.size());
  const std::size_t to = (from + 1 + draws.below(names.size() - 1)) % names.size();
  *names[to] = *names[from];
  return twin;
}

runtime::Workflow with_an_empty_name(const runtime::Workflow& workflow, sim::Rng& draws) {
  runtime::Workflow twin = workflow;
  std::vector<std::string*> names;
  for (runtime::WorkflowItem& item : twin.items) {
    std::visit([&names](auto& it) { names.push_back(&it.name); }, item);
    if (auto* group = std::get_if<runtime::GroupItem>(&item)) {
      for (runtime::ChildItem& child : group->children) names.push_back(&child.name);
    }
  }
  check(!names.empty(), "a drawn workflow has an item");
  names[draws.below(names.size())]->clear();
  return twin;
}

DrawnTree add_drawn_tree(const TreeParts& parts, sim::Rng& rng, HostileNames& names,
                         const std::string& prefix) {
  return TreeDrawer(parts, rng, names, prefix).draw();
}

std::int64_t last_arrival_ns(const sim::World& world) {
  check(world.options().safety_phase_ns >= 30 * kSecond,
        "the mix's trees arrive until 30 s before the safety phase ends: it needs a safety phase "
        "of at least 30 s");
  return world.options().safety_phase_ns - 30 * kSecond;
}

std::vector<runtime::LeaseKey> add_wild_trees(const TreeParts& parts, HostileNames& names,
                                              const std::vector<std::string>& tenants,
                                              std::set<runtime::LeaseKey>& taken,
                                              const std::string& stream) {
  sim::World& world = *parts.world;
  sim::Rng rng = world.stream(stream);
  const std::int64_t last_arrival = last_arrival_ns(world);
  std::vector<runtime::LeaseKey> keys;
  std::vector<std::string> paths;
  std::vector<std::pair<runtime::LeaseKey, std::string>> children;  // (root, top child path)
  const auto trees = rng.between(1, 2);
  for (std::int64_t t = 1; t <= trees; ++t) {
    const DrawnTree tree = add_drawn_tree(parts, rng, names, fmt::format("tree-{}", t));
    for (const std::string& path : step_paths(world.workflows(), tree.workflow)) {
      paths.push_back(path);
    }
    const auto roots = rng.between(1, 2);
    for (std::int64_t r = 1; r <= roots; ++r) {
      const std::string& tenant = tenants[rng.below(tenants.size())];
      runtime::LeaseKey key{tenant, names.name(fmt::format("tree-{}-{}", t, r), tenant)};
      // Now and then a root named after an earlier wild root's AnyInstance child (the raw or an
      // encoded join of its id and the child's path): its lease must stay apart from the child's.
      const bool twin = rng.chance(0.3);
      const std::size_t form = rng.below(5);
      if (twin && !children.empty()) {
        const auto& [parent, child] = children[rng.below(children.size())];
        runtime::LeaseKey candidate{parent.tenant_id,
                                    child_key_twins(parent.lease_execution_id, child)[form]};
        if (!taken.contains(candidate)) key = candidate;
      }
      if (!taken.insert(key).second) continue;
      keys.push_back(key);
      for (const std::string& child : tree.top_children) children.emplace_back(key, child);
      world.submit(key, tree.workflow, rng.between(0, last_arrival));
    }
  }
  sim::Rng withdrawals = world.stream(stream + "-withdrawals");
  if (!keys.empty() && !paths.empty()) {
    add_timed_withdrawals(world, parts.probes->watch, withdrawals, parts.instances, keys, paths);
  }
  return keys;
}

}  // namespace fencesim::scenarios
