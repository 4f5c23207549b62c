#pragma once
// Building blocks for workloads: steps that work for a while and write to a sink through the
// fence, in the words of the ADR, and the workload's own records of what it meant and saw, which
// the oracles judge the runtime by.
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runtime/execution_context.h"
#include "runtime/workflow.h"
#include "sim/world.h"

namespace fencesim::scenarios {

// A step that works for `duration` of its node's time.
runtime::StepItem work_step(std::string name, runtime::Nanoseconds duration);
// A step that works for `duration`, then writes `payload` to `sink` as its effect "write", with its
// token and that effect's idempotency key. Declared (see DeclaredStep): the oracle knows it writes.
runtime::StepItem write_step(sim::World& world, std::string name, runtime::Nanoseconds duration,
                             std::string sink, std::string payload);

// The workload's declaration that a step, whenever it ends ok, has made each of these effects:
// part of the workflow's data (the step's body is a DeclaredStep), so that the exactly-once oracle
// knows which effects a completed tree must show without asking the runtime which steps ran.
struct DeclaredEffect {
  std::string sink;
  std::string effect;
};
struct DeclaredStep {
  std::vector<DeclaredEffect> effects;
  runtime::StepBody body;
  void operator()(runtime::ExecutionContext& ctx) const { body(ctx); }
};
runtime::StepItem declared_step(std::string name, std::vector<DeclaredEffect> effects,
                                runtime::StepBody body);
// `step` with `body` in place of its own (a wrapper that calls the old one): a declared step stays
// declared, since the exactly-once oracle reads its effects from the workflow.
runtime::StepItem with_body(const runtime::StepItem& step, runtime::StepBody body);

// From a step: records the intent (World::intend), then writes `effect` through the step's fence,
// then records what the body saw (World::observe). Every workload write goes through here, so the
// oracles know every effect a workload meant. The payload that reaches the sink is the effect's
// identity (effect_identity) followed by `payload`.
runtime::SinkReply write_effect(sim::World& world, runtime::ExecutionContext& ctx,
                                const std::string& sink, std::string_view effect,
                                const std::string& payload);
// The same from a withdrawal (in a step's frame): its effect is meant at most once, since nobody
// re-runs a withdrawal whose write was lost (ADR-0023, Consequences).
runtime::SinkReply write_withdrawal_effect(sim::World& world, runtime::ExecutionContext& ctx,
                                           const std::string& sink, std::string_view effect,
                                           const std::string& payload);

// From a step: confirmNow() through the step's fence, recording what the body saw
// (World::observe, what = "confirm"). Every workload confirm goes through here.
//
// When a write or a confirm throws, both also record what was thrown (what = "thrown"): lease key
// and token of the fence, sink = "write" or "confirm", outcome = the class of the thrown object
// itself, as error-class names go in record_errors. Recorded before the fence is read.
runtime::Nanoseconds confirm_now(sim::World& world, runtime::ExecutionContext& ctx);

// From a step body (or a withdrawal's), after a call through its fence: reads the fence as the body
// would (confirmedUntil, then assertHeld()) and records what it saw (World::observe, what =
// "fence"): lease key and token, began_ns = now, outcome "until <confirmedUntil, the holder's
// monotonic ns> held" or "until <ns> lost <code of what assertHeld threw>". A frame without a
// fence (context unavailable) records nothing. The fence-after-loss oracle judges these reads
// against the store's grants, never against the runtime's belief.
void read_fence(sim::World& world, runtime::ExecutionContext& ctx);

// Visits every error reachable from `error` by the workload's own walk (causes, AggregateError
// members, std::nested_exception; not the runtime's search): depth first, members before causes,
// each thrown object once (chains may be cycles), at most 64; `error` itself first. Each is visited
// as its pointer and as the object thrown (one rethrow each: error paths are costly enough).
void for_each_error(
    const std::exception_ptr& error,
    const std::function<void(const std::exception_ptr&, const std::exception&)>& visit);

// Records every error reachable from `error` that the workload knows as one of the ADR's error
// classes (World::observe, what = "error", one record each): sink = where it was seen ("write",
// "confirm", "step", "withdrawal"), effect = the class's name (the most derived of the ADR's
// classes it is an instance of), outcome = its code. The walk is the workload's own (causes,
// AggregateError members, std::nested_exception), not the runtime's search; the error-code-families
// oracle judges the codes against its own table written from the ADR.
void record_errors(sim::World& world, runtime::ExecutionContext& ctx, std::string_view where,
                   const std::exception_ptr& error);

// From a withdrawal's body, first thing: records the frame it runs in as the body sees it
// (World::observe, what = "withdrawal"): lease = the tree, token = its fence's token (kTokenNone
// without a fence), sink = `named_path` (the step path the withdrawal was asked for; the record's
// step is the path of the frame it got), outcome "fenced" or "unfenced" (its fence refused with
// ExecutionContextUnavailableError). Judged against the store's record of the tree's end and
// against the path it named.
void record_withdrawal_frame(sim::World& world, runtime::ExecutionContext& ctx,
                             const std::string& named_path);
// From a withdrawal's body, the last thing before it returns normally (never when it throws):
// records that it returned (World::observe, what = "withdrawal-body-returned"): lease = the tree,
// token = the fence's token the body read when it began (kTokenNone without a fence; read again
// now, a fence whose step has ended refuses, as it has once the pass gave the lease back), outcome
// "returned" (the world's own "withdrawal-returned" is the client's side: what withdraw() gave
// back, recorded after the runtime's report). The runtime reports the
// withdrawal's end (kWithdrawalEnded) right after, with no fiber switch between: the
// returned-withdrawal-not-lost oracle judges that report by this record, not by the runtime's own
// view of how the body ended.
void record_withdrawal_body_returned(sim::World& world, runtime::ExecutionContext& ctx,
                                     runtime::Token token);

// The workload's own name for an effect: tree, step path and effect name, each length-prefixed
// ("<bytes>:<part>", four parts, then '='), so that no two different effects share a name whatever
// bytes their parts hold. Independent of the runtime's encoders by design.
std::string effect_identity(const runtime::LeaseKey& tree, std::string_view step_path,
                            std::string_view effect);
struct EffectIdentity {
  runtime::LeaseKey tree;
  std::string step_path;
  std::string effect;
  std::size_t length = 0;  // bytes of the payload the identity takes, including the '='
};
// The identity a payload starts with, or nullopt if it does not start with a well-formed one.
std::optional<EffectIdentity> parse_effect_identity(std::string_view payload);

}  // namespace fencesim::scenarios
