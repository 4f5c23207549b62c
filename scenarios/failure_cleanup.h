#pragma once
// Step bodies that clean up after a failure before they let it go (an application's `finally`:
// closing a connection, logging the failure to a remote system, rolling back a local buffer).
// The step's failure then reaches the runtime's decision a while after the call that failed: what
// lands in between (a refusal of a write that was left in flight at the abort, a cancel, a loss of
// the lease) must be taken into account by that decision (ADR-0023: a refusal is checked before
// the signal's reason at every place the runtime decides). Without it the decision always follows
// the abort at once and no late news ever reaches it.
#include "runtime/types.h"
#include "runtime/workflow.h"
#include "sim/random.h"

namespace fencesim::scenarios {

// `step` whose body, when it fails, works for `cleanup` of its node's time, then rethrows the
// failure unchanged. A declared step stays declared (scenarios/workload.h).
runtime::StepItem with_failure_cleanup(runtime::StepItem step, runtime::Nanoseconds cleanup);

// A cleanup's length, drawn from `rng`: 10 ms to 3 s, long enough for a renewal's reply, a refusal
// or a cancel to land during it.
runtime::Nanoseconds draw_cleanup(sim::Rng& rng);

// Every step of `workflow` with a cleanup of draw_cleanup (a step in four none).
runtime::Workflow with_failure_cleanups(runtime::Workflow workflow, sim::Rng& rng);

}  // namespace fencesim::scenarios
