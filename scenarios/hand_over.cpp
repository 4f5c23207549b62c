#include "scenarios/hand_over.h"

#include <fmt/format.h>

#include <exception>
#include <string>

#include "runtime/errors.h"
#include "scenarios/hand_over_text.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios {

using runtime::ExecutionContext;

std::string reply_text(const DownstreamSystem::Reply& reply) {
  switch (reply.verdict) {
    case DownstreamSystem::Verdict::kAccepted:
      return "accepted";
    case DownstreamSystem::Verdict::kRejected:
      return fmt::format("rejected seen {}", reply.seen);
    case DownstreamSystem::Verdict::kUnavailable:
      break;
  }
  return "unavailable";
}

DownstreamCall call_downstream(sim::World& world, ExecutionContext& ctx,
                               DownstreamSystem& downstream) {
  const runtime::ExecutionFence fence = ctx.fence();
  DownstreamCall call{{fence.tenant_id(), fence.lease_execution_id()}, fence.token(), {}};
  const std::int64_t began_ns = world.true_now_ns();
  call.reply = downstream.call(ctx, call.token);
  world.observe(ctx, sim::World::Observation{"downstream", call.lease, call.token, "downstream",
                                             {}, began_ns, reply_text(call.reply)});
  return call;
}

namespace {

// What fenced(observed) gave the body: the error it is to throw, and its code as the body reads it
// (the ADR's classes carry one), or "error: <what>" for anything else fenced() let escape.
struct HandOver {
  std::exception_ptr error;
  std::string got;
};

HandOver call_fenced(ExecutionContext& ctx, runtime::Token observed, HandOverBy by) {
  HandOver out;
  runtime::Token fence_token = runtime::kTokenNone;
  try {
    const runtime::ExecutionFence fence = ctx.fence();
    if (by == HandOverBy::kFence) {
      // fenced(observed) is called whatever the fence's state: a withdrawal's step may have
      // ended before the rejection came, and the refusal must still reach the runtime (red team
      // re-read 2026-12-04, finding 2). Its token is read for the record only if it can be.
      try {
        fence_token = fence.token();
      } catch (const runtime::ExecutionContextUnavailableError&) {
      }
      throw fence.fenced(observed);
    }
    fence_token = fence.token();
    throw runtime::ExecutionFencedError({fence.tenant_id(), fence.lease_execution_id()},
                                        fence.token(), observed, std::string(fence.scope_key()));
  } catch (const runtime::ExecutionContextUnavailableError&) {
    out.error = std::current_exception();  // a withdrawal whose step ended: nothing to hand over
  } catch (const runtime::ExecutionFencedError& error) {
    // The application reads the error as the ADR gives it: fenced(observedToken) carries the
    // token the downstream reported and the fence's own. One that carries others is not the
    // hand-over the body asked for, and the record says what it carried.
    out.got = fenced_error_text(error, observed, fence_token);
    out.error = std::current_exception();
  } catch (const runtime::ExecutionError& error) {
    out.got = std::string(error.code());
    out.error = std::current_exception();
  } catch (const std::exception& error) {
    out.got = std::string("error: ") + error.what();
    out.error = std::current_exception();
  }
  return out;
}

}  // namespace

HandOverBy hand_over_by(sim::Rng& how) {
  return how.chance(0.5) ? HandOverBy::kOwnError : HandOverBy::kFence;
}

[[noreturn]] void hand_over(sim::World& world, ExecutionContext& ctx,
                            const runtime::LeaseKey& lease, runtime::Token token,
                            runtime::Token observed, ErrorShape shape, HandOverBy how,
                            const char* by) {
  world.mark(ctx, observed > token    ? "downstream-rejected-later"
                  : observed == token ? "downstream-rejected-own"
                                      : "downstream-rejected-older");
  if (observed > runtime::kTokenMax) {
    // No application can build the ADR's error with a token that is no token: it asks its fence,
    // whose fenced(observed) must still stop the holder (issue 29 item 4).
    world.mark(ctx, "downstream-reported-no-token");
    how = HandOverBy::kFence;
  }
  const std::int64_t began_ns = world.true_now_ns();
  HandOver handed = call_fenced(ctx, observed, how);
  if (how == HandOverBy::kOwnError) world.mark(ctx, "fenced-error-built-by-application");
  if (handed.got.empty()) {
    // The fence refused: its step ended before the rejection came (a withdrawal's body in the
    // step's frame). "A fence kept past its step refuses", but the refusal it was handed still
    // stops the holder of the token (red team re-read 2026-12-04, finding 2): recorded, so that
    // refusal-hands-over can expect silence under the token from here on.
    if (how == HandOverBy::kFence) {
      world.mark(ctx, "fenced-past-its-step");
      world.observe(ctx, sim::World::Observation{"fenced-past-step", lease, token, by,
                                                 std::to_string(observed), began_ns,
                                                 "execution.context-unavailable"});
    }
    std::rethrow_exception(handed.error);
  }
  // The record says who made the error: the hand-over oracle expects silence under the token from
  // the fenced() call, or from the runtime's decision about the step for an error the body built.
  const std::string made_by = how == HandOverBy::kOwnError ? std::string(by) + "/own-error" : by;
  world.observe(ctx, sim::World::Observation{"fenced", lease, token, made_by,
                                             std::to_string(observed), began_ns, handed.got});
  record_errors(world, ctx, "fenced", handed.error);
  world.mark(ctx, "fenced-error-wrapped");
  std::rethrow_exception(wrap_refusal(shape, handed.error));
}

}  // namespace fencesim::scenarios
