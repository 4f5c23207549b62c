#pragma once
// Shrinking a failing run to a minimal fault plan, by delta debugging over the plan that ran: the
// same scenario, seed, strategy and sink double, with RunRequest::plan_override. A candidate plan
// is kept iff its run fails the same way (same status and, for a violation, the same first
// violated invariant). First whole faults are removed (all of them, then halves, quarters, ...,
// singles), then each remaining fault's numbers move toward simpler values (time toward 0, a
// trigger toward its first occurrence and no delay, durations and amounts toward 0), by binary
// search; both are repeated until nothing changes or the run budget is spent.
//
// Runs are deterministic, so the same failure and budget give the same result.
#include <cstdint>
#include <string>
#include <vector>

#include "properties/run.h"
#include "sim/fault.h"

namespace fencesim::properties {

struct ShrinkResult {
  sim::FaultPlan plan;  // the smallest plan found that still fails the same way
  // What was removed or reduced, in words, in the order it happened ("removed fault 3: stall
  // instance-2 for 31000 ms at 12.500 s", "fault 1: duration 45s -> 31s"). Faults are numbered
  // from 1 as in the failure's plan.
  std::vector<std::string> removed;
  std::uint64_t runs = 0;  // worlds run while shrinking (at most max_runs)
  RunReport report;        // the run of `plan` (the failure itself when nothing could go)
};

// Whether `candidate` fails the way `failure` does: the same status and, for a violation, the same
// first violated invariant.
bool fails_the_same_way(const RunReport& failure, const RunReport& candidate);

// REQUIRES: failure.status != RunStatus::kPass. Runs at most `max_runs` worlds.
ShrinkResult shrink_failure(const scenarios::ScenarioRegistry& registry, const RunReport& failure,
                            std::uint64_t max_runs = 500);

}  // namespace fencesim::properties
