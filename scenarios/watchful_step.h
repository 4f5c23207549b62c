#pragma once
// Steps that watch their abort signal, as an application's long step does between units of work:
// the runtime aborts the signal of the steps running under a lease when the lease is lost or when
// the pass learns that its tree was cancelled (#360: "its signal aborts with a cancel reason"), and
// a step that watches stops at its next look. What each look saw is the workload's own record
// (World::observe, what = "signal"), which the cancel oracles judge (properties/
// invariants_cancel_reach.h): without a step that looks, a signal nobody aborted looks the same as
// one that was aborted.
#include "runtime/types.h"
#include "runtime/workflow.h"
#include "sim/random.h"
#include "sim/world.h"

namespace fencesim::scenarios {

// One look at the signal of `ctx`'s step, recorded as the cancel oracles read it ("live" or
// "aborted", lease = the step's tree key); returns whether it is aborted.
bool look_at_signal(sim::World& world, runtime::ExecutionContext& ctx);

// One look at the reason of `ctx`'s signal, for a body that keeps working after an abort (a
// withdrawal's cleanup): recorded as what = "signal-reason", lease = the tree key, token = `token`
// (the fence's token the body read when it began: the signal is its lease's), outcome "live" or
// the code of the reason's error (ExecutionError::code(), "error" for another std::exception). The
// signal-reason-kept oracle judges these: a signal's first reason is kept (a second abort does
// nothing, as with JavaScript's AbortController). Returns whether it is aborted.
bool look_at_signal_reason(sim::World& world, runtime::ExecutionContext& ctx,
                           runtime::Token token);

// `step` whose body first works `watch` of its node's time in chunks of one second (the last one
// shorter), looking at its signal after each: it records "live" or "aborted" (lease = the step's
// tree key), and once aborted it stops with the signal's reason. Then the body runs as it was. A
// declared step stays declared (scenarios/workload.h).
runtime::StepItem watchful(sim::World& world, runtime::StepItem step, runtime::Nanoseconds watch);

// Every step of `workflow`, with a chance of one in three, made watchful for 1 to 25 s drawn from
// `rng`.
runtime::Workflow with_watchful_steps(sim::World& world, runtime::Workflow workflow, sim::Rng& rng);

}  // namespace fencesim::scenarios
