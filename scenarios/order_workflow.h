#pragma once
// The workflows the catalogue's stories share.
#include "runtime/workflow.h"
#include "sim/random.h"
#include "sim/world.h"

namespace fencesim::scenarios {

// "order": reserve, charge (a fenced write to `sink`), ship; each step works for 0.5 to 3 s.
runtime::Workflow order_workflow(sim::World& world, sim::Rng& workload,
                                 const std::string& sink = "payments");

// "order": prepare (1 s), then charge (1 s, a fenced write to "payments"): a tree whose last step's
// checkpoint and completion come about 2 s in, for stories that act around them.
runtime::Workflow quick_order(sim::World& world);

}  // namespace fencesim::scenarios
