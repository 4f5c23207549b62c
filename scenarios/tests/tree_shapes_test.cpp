// The wild trees of the nightly mix and the swarm (scenarios/tree_shapes.h), read from the worlds
// the scenarios build (no run): hostile names reach every position the runtime takes a name in,
// the drawn trees have the shapes that tree bugs need (two AnyInstance children of one name in one
// tree, groups of mixed placements, two lanes waiting on remote children at once, nested groups),
// and the same seed draws the same trees.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "scenarios/hostile_names.h"
#include "scenarios/scenario.h"
#include "scenarios/tests/built_world.h"
#include "scenarios/tree_shapes.h"
#include "scenarios/tree_watch.h"
#include "scenarios/unchecked_system.h"
#include "scenarios/window_workload.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios::tree_shapes_test {
namespace {

using runtime::ChildPlacement;

// What one world holds, as counts over its trees.
struct Seen {
  int hostile_tenants = 0, hostile_ids = 0, hostile_groups = 0, hostile_children = 0,
      hostile_steps = 0;
  bool any_child_name_repeated = false;  // two AnyInstance children of one name in one tree
  bool mixed_group = false;              // a ParentInstance and an AnyInstance child side by side
  bool lanes_wait_at_once = false;       // two ParentInstance branches that each wait remotely
  bool nested_groups = false;            // a group inside a group's child
  std::vector<std::string> names;        // every name, in walk order (for the determinism test)
  // Every (depth of a group's level, placement of one of its children).
  std::set<std::pair<int, ChildPlacement>> placements;
};

class Walker {
 public:
  Walker(const runtime::WorkflowRegistry& registry, Seen& seen)
      : registry_(registry), seen_(seen) {}

  // Walks the tree of `workflow` under one lease (through ParentInstance and ThisWorkflow
  // children); AnyInstance children's workflows are walked as trees of their own. Returns whether
  // the level places an AnyInstance child somewhere under this lease.
  bool walk(const std::string& workflow, int depth, std::multiset<std::string>& any_names) {
    if (depth > 8) return false;
    bool waits = false;
    for (const runtime::WorkflowItem& item : registry_.get(workflow).items) {
      if (const auto* step = std::get_if<runtime::StepItem>(&item)) {
        count(step->name, seen_.hostile_steps);
        continue;
      }
      const auto& group = std::get<runtime::GroupItem>(item);
      count(group.name, seen_.hostile_groups);
      if (depth > 0) seen_.nested_groups = true;
      bool parent = false, any = false;
      int branches_waiting = 0;
      for (const runtime::ChildItem& child : group.children) {
        count(child.name, seen_.hostile_children);
        seen_.placements.emplace(depth, child.placement);
        if (child.placement == ChildPlacement::kAnyInstance) {
          any = waits = true;
          if (any_names.contains(child.name)) seen_.any_child_name_repeated = true;
          any_names.insert(child.name);
          std::multiset<std::string> own;
          walk(child.workflow, depth + 1, own);
          continue;
        }
        parent = parent || child.placement == ChildPlacement::kParentInstance;
        const bool child_waits = walk(child.workflow, depth + 1, any_names);
        waits = waits || child_waits;
        if (child.placement == ChildPlacement::kParentInstance && child_waits) ++branches_waiting;
      }
      seen_.mixed_group = seen_.mixed_group || (parent && any);
      seen_.lanes_wait_at_once = seen_.lanes_wait_at_once || branches_waiting >= 2;
    }
    return waits;
  }

 private:
  void count(const std::string& name, int& hostile) {
    seen_.names.push_back(name);
    if (is_hostile(name)) ++hostile;
  }

  const runtime::WorkflowRegistry& registry_;
  Seen& seen_;
};

Seen built(const std::string& scenario_name, std::uint64_t seed, bool wild_only) {
  static const ScenarioRegistry registry = builtin_scenarios();
  const Scenario* scenario = registry.find(scenario_name);
  EXPECT_NE(scenario, nullptr);
  const auto built = testing::built_world(*scenario, seed);
  const sim::World& world = *built;
  Seen seen;
  for (const sim::World::Submission& s : world.submissions()) {
    if (wild_only && !s.workflow.starts_with("tree-")) continue;
    seen.names.push_back(s.key.tenant_id);
    seen.names.push_back(s.key.lease_execution_id);
    if (is_hostile(s.key.tenant_id)) ++seen.hostile_tenants;
    if (is_hostile(s.key.lease_execution_id)) ++seen.hostile_ids;
    std::multiset<std::string> any_names;
    Walker(world.workflows(), seen).walk(s.workflow, 0, any_names);
  }
  return seen;
}

TEST(TreeShapes, HostileNamesReachEveryNamePositionOfTheWildTrees) {
  for (const char* scenario : {"nightly-mix", "swarm"}) {
    Seen total;
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
      const Seen seen = built(scenario, seed, true);
      total.hostile_tenants += seen.hostile_tenants;
      total.hostile_ids += seen.hostile_ids;
      total.hostile_groups += seen.hostile_groups;
      total.hostile_children += seen.hostile_children;
      total.hostile_steps += seen.hostile_steps;
    }
    EXPECT_GT(total.hostile_tenants, 0) << scenario;
    EXPECT_GT(total.hostile_ids, 0) << scenario;
    EXPECT_GT(total.hostile_groups, 0) << scenario;
    EXPECT_GT(total.hostile_children, 0) << scenario;
    EXPECT_GT(total.hostile_steps, 0) << scenario;
  }
}

TEST(TreeShapes, TheWildTreesHoldTheShapesTreeBugsNeed) {
  for (const char* scenario : {"nightly-mix", "swarm"}) {
    int repeated = 0, mixed = 0, at_once = 0, nested = 0;
    constexpr int kSeeds = 40;
    for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
      const Seen seen = built(scenario, seed, true);
      repeated += seen.any_child_name_repeated ? 1 : 0;
      mixed += seen.mixed_group ? 1 : 0;
      at_once += seen.lanes_wait_at_once ? 1 : 0;
      nested += seen.nested_groups ? 1 : 0;
    }
    // Most seeds, not a lucky few: a 60 s sweep runs each scenario's low seeds.
    EXPECT_GE(repeated, kSeeds / 3) << scenario;
    EXPECT_GE(mixed, kSeeds * 2 / 3) << scenario;
    EXPECT_GE(at_once, kSeeds / 3) << scenario;
    EXPECT_GE(nested, kSeeds * 2 / 3) << scenario;
  }
}

// "Every placement at every level" (scenarios/tree_shapes.h): a ThisWorkflow child, whose steps
// run in the parent's pass under its lease, beside ParentInstance and AnyInstance ones at each of
// the three levels a group can be at, in some of forty seeds.
TEST(TreeShapes, EveryPlacementComesAtEveryLevelOfGroups) {
  for (const char* scenario : {"nightly-mix", "swarm"}) {
    std::set<std::pair<int, ChildPlacement>> placements;
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
      placements.merge(built(scenario, seed, true).placements);
    }
    for (int depth = 0; depth < 3; ++depth) {
      for (const ChildPlacement placement :
           {ChildPlacement::kParentInstance, ChildPlacement::kThisWorkflow,
            ChildPlacement::kAnyInstance}) {
        EXPECT_TRUE(placements.contains({depth, placement}))
            << scenario << ": depth " << depth << ", placement " << static_cast<int>(placement);
      }
    }
  }
}

TEST(TreeShapes, TheSameSeedDrawsTheSameTreesAndAnotherSeedOthers) {
  EXPECT_EQ(built("nightly-mix", 7, false).names, built("nightly-mix", 7, false).names);
  EXPECT_NE(built("nightly-mix", 7, true).names, built("nightly-mix", 8, true).names);
}

// The twin the drawer offers the registry names two siblings of one level alike and is otherwise
// the workflow: never the workflow itself (red team 33b: the second sibling drawn as any of the
// level's, the first among them, so that a twin of two siblings was always the workflow itself and
// the runtime's refusal of same-named siblings was met only by chance). Both levels are drawn.
TEST(TreeShapes, ASameNamedTwinNamesTwoSiblingsOfOneLevelAlike) {
  const runtime::Workflow workflow{
      "w",
      {work_step("a", 1),
       runtime::GroupItem{"g", {{"x", ChildPlacement::kAnyInstance, "leaf"},
                                {"y", ChildPlacement::kParentInstance, "leaf"}}}}};
  sim::Rng draws(1);
  std::set<std::string> levels;
  for (int i = 0; i < 100; ++i) {
    const std::optional<runtime::Workflow> twin = with_same_named_siblings(workflow, draws);
    ASSERT_TRUE(twin.has_value());
    const auto& group = std::get<runtime::GroupItem>(twin->items[1]);
    const std::string a = std::get<runtime::StepItem>(twin->items[0]).name;
    const bool items_alike = a == group.name;
    const bool children_alike = group.children[0].name == group.children[1].name;
    EXPECT_NE(items_alike, children_alike) << "draw " << i << ": one level, and only one";
    levels.insert(items_alike ? "items" : "children");
    EXPECT_EQ(std::set<std::string>({a, group.name, group.children[0].name,
                                     group.children[1].name})
                  .size(),
              3u)
        << "draw " << i;
  }
  EXPECT_EQ(levels.size(), 2u);
  const runtime::Workflow single{"s", {work_step("a", 1)}};
  EXPECT_FALSE(with_same_named_siblings(single, draws).has_value());
}

// An empty-named twin empties exactly one name, an item's or a child's, and every one of them is
// drawn (red team 45c-12: a registry that took an empty item name passed every sweep, since no
// drawn name was ever empty).
TEST(TreeShapes, AnEmptyNamedTwinEmptiesOneNameOfAnyItemOrChild) {
  const runtime::Workflow workflow{
      "w",
      {work_step("a", 1),
       runtime::GroupItem{"g", {{"x", ChildPlacement::kAnyInstance, "leaf"},
                                {"y", ChildPlacement::kParentInstance, "leaf"}}}}};
  sim::Rng draws(1);
  std::set<std::string> emptied;
  for (int i = 0; i < 100; ++i) {
    const runtime::Workflow twin = with_an_empty_name(workflow, draws);
    const auto& group = std::get<runtime::GroupItem>(twin.items[1]);
    const std::vector<std::pair<std::string, std::string>> names{
        {"a", std::get<runtime::StepItem>(twin.items[0]).name},
        {"g", group.name},
        {"x", group.children[0].name},
        {"y", group.children[1].name}};
    int empty = 0;
    for (const auto& [was, now] : names) {
      if (now.empty()) {
        ++empty;
        emptied.insert(was);
      } else {
        EXPECT_EQ(now, was) << "draw " << i;
      }
    }
    EXPECT_EQ(empty, 1) << "draw " << i;
  }
  EXPECT_EQ(emptied, (std::set<std::string>{"a", "g", "x", "y"}));
}

// The drawer offers its twins to the registry, which refuses them: 60 drawn trees meet both kinds
// of refusal (a drawer that stopped offering one kind leaves every sweep green, since a refusal
// leaves nothing in the history).
TEST(TreeShapes, TheDrawerOffersBothKindsOfTwinAndTheRegistryRefusesThem) {
  sim::WorldOptions options;
  options.seed = 7;
  sim::World world(options);
  world.add_lease_store();
  world.add_sink("payments");
  world.add_sink("ledger");
  world.add_instance("instance-1");
  auto probes = std::make_shared<WithdrawalProbes>(WithdrawalProbes{
      &world, std::make_shared<TreeWatch>(world), {"instance-1"}, {}, world.stream("probes"), 30});
  const TreeParts parts{&world, std::make_shared<UncheckedSystem>(world), probes, {"instance-1"},
                        {"payments", "ledger"}};
  HostileNames names(world.stream("names"), 0.35);
  sim::Rng rng = world.stream("trees");
  int same_named = 0;
  int empty_named = 0;
  for (int t = 0; t < 60; ++t) {
    const DrawnTree tree = add_drawn_tree(parts, rng, names, "tree-" + std::to_string(t));
    same_named += tree.same_named_refused;
    empty_named += tree.empty_named_refused;
  }
  EXPECT_GT(same_named, 0);
  EXPECT_GT(empty_named, 0);
}

}  // namespace
}  // namespace fencesim::scenarios::tree_shapes_test
