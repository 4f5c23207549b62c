#pragma once
// The workload of the nightly mix and the swarm: "order" trees using every placement, with names
// drawn per seed (a share hostile, scenarios/hostile_names.h), two ParentInstance branches that
// wait on remote children at once, AnyInstance children that have children of their own, steps
// that keep working after their write, and withdrawals at every moment of a tree's life.
//
// Draws: the step durations, the number of trees and their arrivals from "workload" (as before
// the windows were added); names from "names"; the tree's shape from "shape"; withdrawals from
// "withdrawals" and, at run time, "withdrawal-probes". Beside the order trees, wild trees of shapes
// drawn per seed (scenarios/tree_shapes.h) from "trees" ("swarm-trees" in the swarm).
#include <string>
#include <vector>

#include "sim/world.h"

namespace fencesim::scenarios {

// Adds the sinks ("payments", "ledger"), `instances`, the workflows and the trees, and the
// withdrawals. `swarm` adds the swarm's fence-misuse steps (scenarios/swarm_workload.h).
void add_mix_workload(sim::World& world, const std::vector<std::string>& instances, bool swarm);

// The marks a run of the mix reaches in the windows it aims at (besides the history's).
const std::vector<std::string>& mix_window_marks();

}  // namespace fencesim::scenarios
