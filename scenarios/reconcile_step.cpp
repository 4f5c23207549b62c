// The swarm's "reconcile" step (scenarios/swarm_workload.h): a ledger entry through the fence, then
// a call to a downstream system that checks tokens its own way; a rejection is handed over with
// fence.fenced(observed), as ADR-0023 gives an application to do.
#include <fmt/format.h>

#include <stdexcept>

#include "runtime/errors.h"
#include "runtime/lease_repository.h"
#include "scenarios/error_shapes.h"
#include "scenarios/hand_over_text.h"
#include "scenarios/swarm_workload.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios {

using runtime::ExecutionContext;
using runtime::kMillisecond;

namespace {

constexpr int kAttempts = 4;

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

// What fenced(observed) gave the body: the error it is to throw, and its code as the body reads it
// (the ADR's classes carry one), or "error: <what>" for anything else fenced() let escape.
struct HandOver {
  std::exception_ptr error;
  std::string got;
};

// How the body raises the hand-over. Through fence.fenced(observed), as ADR-0023 gives it, which
// stops the holder before it returns; or as an application whose client library maps the
// downstream's rejection to the ADR's error and builds the ExecutionFencedError itself, from its
// fence's lease and token. Then nothing is stopped until the runtime decides about the step's
// failure ("the holder of its token is stopped with it", at every place the runtime decides),
// while sibling ParentInstance branches still run under the token.
enum class HandOverBy : std::uint8_t { kFence, kOwnError };

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

HandOverBy hand_over_by(sim::Rng& how) {
  return how.chance(0.5) ? HandOverBy::kOwnError : HandOverBy::kFence;
}

// The body's answer to "rejected, seen token `observed`": the hand-over, recorded (`by` is the
// record's sink: "downstream" from the step's body, "downstream-withdrawal" from a withdrawal's),
// then thrown in the run's error shape.
[[noreturn]] void hand_over(sim::World& world, ExecutionContext& ctx,
                            const runtime::LeaseKey& lease, runtime::Token token,
                            runtime::Token observed, ErrorShape shape, HandOverBy how,
                            const char* by = "downstream") {
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

// A client's withdrawal of the reconcile step, made while the step runs (ADR-0023: "a withdrawal
// made inside a pass has its step's" fence): it tells the downstream, with its fence's token,
// that the reconciliation is withdrawn, and hands a rejection over like the step's body does.
// Its failure is decided by the runtime's withdrawal, apart from the step's pass.
runtime::StepBody withdrawal_body(sim::World& world, std::shared_ptr<DownstreamSystem> downstream,
                                  std::shared_ptr<std::uint64_t> next_shape,
                                  std::shared_ptr<sim::Rng> how) {
  return [&world, downstream, next_shape, how](ExecutionContext& ctx) {
    record_withdrawal_frame(world, ctx, ctx.path());
    runtime::LeaseKey lease;
    runtime::Token token = runtime::kTokenNone;
    try {
      const runtime::ExecutionFence fence = ctx.fence();
      lease = {fence.tenant_id(), fence.lease_execution_id()};
      token = fence.token();
    } catch (const runtime::ExecutionContextUnavailableError&) {
      return;  // the step has ended (after the tree ended, nothing is left to withdraw)
    }
    const std::int64_t began_ns = world.true_now_ns();
    const DownstreamSystem::Reply reply = downstream->call(ctx, token);
    world.observe(
        ctx,
        sim::World::Observation{
            "downstream", lease, token, "downstream-withdrawal", {}, began_ns, reply_text(reply)});
    if (reply.verdict == DownstreamSystem::Verdict::kRejected) {
      // The withdrawal's own hand-over, apart from the step body's (the swarm claims it).
      world.mark(ctx, "downstream-withdrawal-rejected");
      hand_over(world, ctx, lease, token, reply.seen, shape_of_run((*next_shape)++),
                hand_over_by(*how),
                "downstream-withdrawal");
    }
  };
}

}  // namespace

runtime::StepItem reconcile_step(sim::World& world, std::string name,
                                 std::shared_ptr<DownstreamSystem> downstream, std::string sink,
                                 std::string_view streams) {
  auto rng = std::make_shared<sim::Rng>(world.stream(streams));
  auto next_shape = std::make_shared<std::uint64_t>(rng->below(kShapeCycle));
  // A stream of its own: drawn only at a rejection, so the step's other draws stay as they were.
  auto how = std::make_shared<sim::Rng>(world.stream(std::string(streams) + "-hand-over"));
  std::vector<DeclaredEffect> effects{{sink, "reconcile"}};
  return declared_step(
      std::move(name), std::move(effects),
      [&world, downstream, sink, rng, next_shape, how](ExecutionContext& ctx) {
        // Now and then a client withdraws the reconciliation while it runs (in the safety phase).
        if (world.true_now_ns() < world.options().safety_phase_ns && rng->chance(0.6)) {
          world.withdraw_at(world.true_now_ns() + rng->between(100, 2'500) * kMillisecond,
                            world.node_names()[world.node_of(ctx)], ctx.tree_key(), ctx.path(),
                            withdrawal_body(world, downstream, next_shape, how));
        }
        for (int attempt = 1; attempt <= kAttempts; ++attempt) {
          // A careful caller confirms its lease before it builds a call to another system (the
          // downstream checks tokens, but under a key of its own choosing); a confirm that
          // throws ends the step with its error.
          confirm_now(world, ctx);
          ctx.env().sleep(rng->between(200, 2'500) * kMillisecond);  // builds the request
          const runtime::ExecutionFence fence = ctx.fence();
          const runtime::LeaseKey lease{fence.tenant_id(), fence.lease_execution_id()};
          const runtime::Token token = fence.token();
          const std::int64_t began_ns = world.true_now_ns();
          const DownstreamSystem::Reply reply = downstream->call(ctx, token);
          world.observe(
              ctx, sim::World::Observation{
                       "downstream", lease, token, "downstream", {}, began_ns, reply_text(reply)});
          if (reply.verdict == DownstreamSystem::Verdict::kRejected) {
            hand_over(world, ctx, lease, token, reply.seen, shape_of_run((*next_shape)++),
                      hand_over_by(*how));
          }
          if (reply.verdict == DownstreamSystem::Verdict::kAccepted) {
            // The entry is idempotent by its effect's key: a retry of the unit deduplicates. A
            // write whose reply did not come (the sink unreachable) may have landed: the unit is
            // retried the same way.
            bool written = true;
            try {
              const runtime::SinkReply entry =
                  write_effect(world, ctx, sink, "reconcile", "reconcile");
              if (attempt > 1 && entry.outcome == runtime::SinkOutcome::kDeduplicated) {
                world.mark(ctx, "retry-deduplicated");
              }
            } catch (const runtime::StoreUnavailableError&) {
              written = false;
            }
            if (written) return;
          }
          ctx.env().sleep(attempt * 300 * kMillisecond);  // backs off before the retry
        }
        throw runtime::StepError(
            "reconcile: the downstream did not answer",
            std::make_exception_ptr(std::runtime_error("downstream: deadline exceeded")));
      });
}

}  // namespace fencesim::scenarios
