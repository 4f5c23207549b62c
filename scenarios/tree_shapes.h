#pragma once
// Wild trees: workflow trees drawn from the seed, for the swarm and the nightly mix (issue 9,
// "the generated names and trees are tame"). The mix's "order" tree has one fixed shape; a bug that
// needs a shape it lacks (two AnyInstance children of one name in two groups, two lanes waiting on
// remote children beside ParentInstance siblings that finished) survives every sweep. So each seed
// also draws trees whose shape nobody chose:
// - nesting depth up to three group levels, every placement at every level;
// - groups of mixed placements (ParentInstance, ThisWorkflow and AnyInstance children side by
//   side), and "fans": two or three ParentInstance branches running one drawn workflow, so that
//   several lanes wait on remote children at once and every name inside the branch repeats;
// - names drawn from a small pool per tree (a share hostile, scenarios/hostile_names.h), so step,
//   group and child names repeat across groups and depths (unique only among siblings, which the
//   runtime requires: a path names one step); and one drawn workflow in five is first offered to
//   the registry as a twin whose two siblings share a name (issue 29 item 5), which the runtime
//   must refuse (siblings-named-apart judges a twin that was deployed);
// - steps that keep working after their write returned (a second effect, a confirm, an unchecked
//   call, a withdrawal of their own path on another instance), every step probed for withdrawals
//   at its moments (scenarios/window_workload.h).
// Every effect goes through write_effect (the workload's intents), every step is a declared step
// where it writes: the oracles judge these trees by their own record, as they judge the order tree.
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "scenarios/hostile_names.h"
#include "scenarios/unchecked_system.h"
#include "scenarios/window_workload.h"
#include "sim/world.h"

namespace fencesim::scenarios {

// What a drawn tree's steps use.
struct TreeParts {
  sim::World* world;
  std::shared_ptr<UncheckedSystem> system;
  std::shared_ptr<WithdrawalProbes> probes;  // every drawn step is probed
  std::vector<std::string> instances;        // where a step asks for its own withdrawal
  std::vector<std::string> sinks;            // where steps write
};

// One drawn tree: its root workflow's name in the registry and, for hostile roots named after it,
// the paths (runtime::join_path) of the AnyInstance children of its top level.
struct DrawnTree {
  std::string workflow;
  std::vector<std::string> top_children;
  // The twins of its workflows offered to the registry first and refused, as the runtime must:
  // two siblings named alike, or a name made empty. Nothing records a refusal in the history, so
  // these are how a test sees that the offers are still made.
  int same_named_refused = 0;
  int empty_named_refused = 0;
};

// Draws one tree's workflows from `rng` (names from `names`) and adds them to the world's registry
// as `prefix` (the root) and `prefix` + ".<n>" (its levels and children).
DrawnTree add_drawn_tree(const TreeParts& parts, sim::Rng& rng, HostileNames& names,
                         const std::string& prefix);

// A copy of `workflow` in which one sibling of a level (two items of the workflow, or two
// children of one group) takes another's name, the level and the two siblings drawn from
// `draws`; none if no level has two siblings. The drawer offers the registry such a twin first
// now and then; the runtime must refuse it.
std::optional<runtime::Workflow> with_same_named_siblings(const runtime::Workflow& workflow,
                                                          sim::Rng& draws);

// A copy of `workflow` in which one name (an item's, or a child's of one of its groups), drawn from
// `draws`, is made empty. REQUIRES a workflow with an item. The drawer offers it now and then;
// the runtime must refuse it.
runtime::Workflow with_an_empty_name(const runtime::Workflow& workflow, sim::Rng& draws);

// When the mix's trees (order trees and wild ones) arrive at the latest: 30 s before the safety
// phase ends, so that each meets work and faults. Checks that the safety phase is that long (a
// spec may set it; check_against_workload refuses a spec that does not).
std::int64_t last_arrival_ns(const sim::World& world);

// The mix's wild trees: one or two drawn trees (stream `stream`), each submitted once or twice (a
// root of a tenant of `tenants`, now and then one named after an earlier drawn tree's AnyInstance
// child; never a key of `taken`, which it extends), arriving in the safety phase; timed withdrawals
// aimed at their steps (stream `stream` + "-withdrawals"). Returns the roots' keys.
std::vector<runtime::LeaseKey> add_wild_trees(const TreeParts& parts, HostileNames& names,
                                              const std::vector<std::string>& tenants,
                                              std::set<runtime::LeaseKey>& taken,
                                              const std::string& stream);

}  // namespace fencesim::scenarios
