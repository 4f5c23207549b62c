#pragma once
// The workflows the catalogue's stories share.
#include "runtime/workflow.h"
#include "sim/random.h"
#include "sim/world.h"

namespace fencesim::scenarios {

// "order": reserve, charge (a fenced write to `sink`), ship; each step works for 0.5 to 3 s.
runtime::Workflow order_workflow(sim::World& world, sim::Rng& workload,
                                 const std::string& sink = "payments");

}  // namespace fencesim::scenarios
