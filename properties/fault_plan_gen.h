#pragma once
// RapidCheck generators of fault plans over a scenario's nodes. Faults are plain data, so
// RapidCheck shrinks a failing plan by dropping faults and shrinking their times and durations
// toward zero: a failure ends as a minimal plan.
#include <rapidcheck.h>

#include <string>
#include <vector>

#include "sim/fault.h"

namespace fencesim::properties {

struct PlanTopology {
  std::vector<std::string> instances;
  std::vector<std::string> stores;  // the lease store and the sinks
  std::int64_t safety_phase_ns;
  std::int64_t drift_bound_ppm;
};

// One fault on one of the topology's nodes, inside the protocol's assumptions (drift within the
// bound), at a time inside the safety phase.
rc::Gen<sim::Fault> gen_fault(const PlanTopology& topology);
rc::Gen<sim::FaultPlan> gen_fault_plan(const PlanTopology& topology, std::size_t max_faults);

}  // namespace fencesim::properties
