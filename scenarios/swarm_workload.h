#pragma once
// The swarm's additions to the nightly mix's trees, so that one swarm of seeds can reach every
// mark the catalogue names: a step that confirms its lease and calls a system that cannot check
// tokens, a fence kept for a later step and an ancestor's fence (both must refuse), a charge whose
// refusal is wrapped in an aggregate. (Withdrawals: scenarios/window_workload.h.)
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "runtime/execution_fence.h"
#include "runtime/workflow.h"
#include "scenarios/downstream_system.h"
#include "sim/world.h"

namespace fencesim::scenarios {

// Fences kept by a step for a later step of the same pass, by (scope key, token).
using KeptFences = std::map<std::pair<std::string, runtime::Token>, runtime::ExecutionFence>;

// "keep-fence": stores its own fence. "reuse-fence": uses the fence its pass kept, which must
// refuse (marks kept-fence-refused).
runtime::StepItem keep_fence_step(std::shared_ptr<KeptFences> kept);
runtime::StepItem reuse_fence_step(sim::World& world, std::shared_ptr<KeptFences> kept);
// A step of a nested level that reaches for its ancestor's fence, which must refuse.
runtime::StepItem ancestor_fence_step(sim::World& world);
// Confirms and calls a system that cannot check tokens, twice (see UncheckedSystem); now and then
// (at most once per tree) fails as an application's step does, with a StepError (marks
// application-step-failed).
runtime::StepItem notify_step(sim::World& world);
// Works for `duration`, then writes to `sink`; a refusal is wrapped in one of the error shapes
// (scenarios/error_shapes.h), drawn per seed and changed per run (marks fenced-error-wrapped).
runtime::StepItem wrapping_write_step(sim::World& world, std::string name,
                                      runtime::Nanoseconds duration, std::string sink);

// "reconcile" (declares the effect `sink`/"reconcile"): the unit of work of a step that passes
// its fence's token to a downstream system that checks tokens its own way
// (scenarios/downstream_system.h), after a confirmNow, then records an entry in `sink` through its
// fence. When the
// downstream does not answer in time, or the entry's sink cannot be reached, the application
// retries the whole unit (its call goes again with the same token, its write deduplicates), at
// most four times. When the downstream rejects the call reporting "seen token T", the body does
// what ADR-0023 gives it: throws fence.fenced(T), whatever T is, or (half the rejections, drawn)
// builds the ExecutionFencedError itself from its fence's lease and token, as a client library
// mapping the downstream's rejection would: then only the runtime's decision about the step stops
// the holder (mark fenced-error-built-by-application). Either way wrapped in the error shape of the
// run (scenarios/error_shapes.h). Like many applications it does not look at its lease between
// building the request and sending it, so a call may leave after the lease expired locally (a
// pause while it built the request) and meet the rejection then. It records the downstream's
// answer (World::observe, what = "downstream") and what fenced() gave it (what = "fenced", effect
// = T, outcome = the code of the error it got, or "error: <what>" for anything else), which the
// refusal-hands-over oracle judges. Marks downstream-rejected-later, -own and -older (T against
// the token the call carried) and retry-deduplicated.
// `streams` names the step's random streams (one name for each step of a tree: two steps with one
// name would draw alike).
runtime::StepItem reconcile_step(sim::World& world, std::string name,
                                 std::shared_ptr<DownstreamSystem> downstream, std::string sink,
                                 std::string_view streams = "reconcile");

// Runs `use`; marks `refused_mark` if it refused with ExecutionContextUnavailableError, and
// fence-misuse-not-refused (an invariant's violation) if it did not.
void expect_unavailable(sim::World& world, runtime::ExecutionContext& ctx,
                        const std::function<void()>& use, const std::string& refused_mark);

}  // namespace fencesim::scenarios
