#pragma once
// Trouble at the end of a pass, for the wild worlds (swarm, nightly-mix):
// - the placement queue (on the lease store) out of reach of one instance for a moment, right after
//   that instance ended a pass one way or another (a completion committed, a cancel seen, a
//   failure decided, a pass abandoned): exactly when it is about to tell the queue that the tree
//   ended, or to leave the tree to the next holder. Short (0.2 to 3 s, far inside the lease's
//   30 s), so the lease itself survives and only the queue's answer is missing;
// - a confused or hostile client that places a root under a key it read somewhere: an AnyInstance
//   child's key, already on the queue. The queue must refuse a root with a child's reserved id in
//   every state, also once the child was placed (own-workflow: one key, one tree).
// Each draws from a stream of its own, so every other draw of a seed stays.
#include "sim/random.h"
#include "sim/world.h"

namespace fencesim::scenarios {

void add_pass_end_queue_faults(const sim::World& world, sim::FaultPlan& plan, sim::Rng rng,
                               const std::vector<std::string>& instances);

void add_child_key_client(sim::World& world, sim::Rng rng);

}  // namespace fencesim::scenarios
