#pragma once
// A step body's answer to a downstream system's rejection "seen token T" (ADR-0023: the body
// throws fenced(observedToken)), shared by the reconcile step (scenarios/reconcile_step.cpp) and
// the refusal-in-every-shape story (scenarios/catalogue_hand_over_shapes.cpp): the hand-over,
// its records for the refusal-hands-over oracle, and the error thrown in a chosen shape.
#include <cstdint>
#include <string>

#include "runtime/execution_context.h"
#include "scenarios/downstream_system.h"
#include "scenarios/error_shapes.h"
#include "sim/random.h"
#include "sim/world.h"

namespace fencesim::scenarios {

// The reply as the body's record of it gives it: "accepted", "rejected seen T" or "unavailable".
std::string reply_text(const DownstreamSystem::Reply& reply);

// A step body's call to a downstream system: its fence's lease and token, and the reply.
struct DownstreamCall {
  runtime::LeaseKey lease;
  runtime::Token token = runtime::kTokenNone;
  DownstreamSystem::Reply reply;
};
// Reads the step's fence (lease and token), calls `downstream` with the token and records the
// reply (World::observe, what = "downstream", sink "downstream", outcome reply_text()), which the
// refusal-hands-over oracle reads.
DownstreamCall call_downstream(sim::World& world, runtime::ExecutionContext& ctx,
                               DownstreamSystem& downstream);

// How the body raises the hand-over. Through fence.fenced(observed), as ADR-0023 gives it, which
// stops the holder before it returns; or as an application whose client library maps the
// downstream's rejection to the ADR's error and builds the ExecutionFencedError itself, from its
// fence's lease and token. Then nothing is stopped until the runtime decides about the step's
// failure ("the holder of its token is stopped with it", at every place the runtime decides),
// while sibling ParentInstance branches still run under the token.
enum class HandOverBy : std::uint8_t { kFence, kOwnError };

// Either way, half and half, drawn from `how`.
HandOverBy hand_over_by(sim::Rng& how);

// The body's answer to "rejected, seen token `observed`": the hand-over, recorded (`by` is the
// record's sink: "downstream" from the step's body, "downstream-withdrawal" from a withdrawal's),
// then thrown in `shape`. Marks downstream-rejected-later, -own or -older (`observed` against
// `token`), fenced-error-built-by-application for an error the body built, and
// fenced-error-wrapped once the error is thrown in its shape.
[[noreturn]] void hand_over(sim::World& world, runtime::ExecutionContext& ctx,
                            const runtime::LeaseKey& lease, runtime::Token token,
                            runtime::Token observed, ErrorShape shape, HandOverBy how,
                            const char* by = "downstream");

}  // namespace fencesim::scenarios
