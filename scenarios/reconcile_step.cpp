// The swarm's "reconcile" step (scenarios/swarm_workload.h): a ledger entry through the fence, then
// a call to a downstream system that checks tokens its own way; a rejection is handed over with
// fence.fenced(observed), as ADR-0023 gives an application to do.
#include <stdexcept>

#include "runtime/errors.h"
#include "runtime/lease_repository.h"
#include "scenarios/error_shapes.h"
#include "scenarios/hand_over.h"
#include "scenarios/swarm_workload.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios {

using runtime::ExecutionContext;
using runtime::kMillisecond;

namespace {

constexpr int kAttempts = 4;

// A client's withdrawal of the reconcile step, made while the step runs (ADR-0023: "a withdrawal
// made inside a pass has its step's" fence): it tells the downstream, with its fence's token,
// that the reconciliation is withdrawn, and hands a rejection over like the step's body does.
// Its failure is decided by the runtime's withdrawal, apart from the step's pass.
runtime::StepBody withdrawal_body(sim::World& world, std::shared_ptr<DownstreamSystem> downstream,
                                  std::shared_ptr<ShapeCycle> shapes,
                                  std::shared_ptr<sim::Rng> how) {
  return [&world, downstream, shapes, how](ExecutionContext& ctx) {
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
      hand_over(world, ctx, lease, token, reply.seen, shapes->next(),
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
  auto shapes = std::make_shared<ShapeCycle>(rng->below(kShapeCycle));
  // A stream of its own: drawn only at a rejection, so the step's other draws stay as they were.
  auto how = std::make_shared<sim::Rng>(world.stream(std::string(streams) + "-hand-over"));
  std::vector<DeclaredEffect> effects{{sink, "reconcile"}};
  return declared_step(
      std::move(name), std::move(effects),
      [&world, downstream, sink, rng, shapes, how](ExecutionContext& ctx) {
        // Now and then a client withdraws the reconciliation while it runs (in the safety phase).
        if (world.true_now_ns() < world.options().safety_phase_ns && rng->chance(0.6)) {
          world.withdraw_at(world.true_now_ns() + rng->between(100, 2'500) * kMillisecond,
                            world.node_names()[world.node_of(ctx)], ctx.tree_key(), ctx.path(),
                            withdrawal_body(world, downstream, shapes, how));
        }
        for (int attempt = 1; attempt <= kAttempts; ++attempt) {
          // A careful caller confirms its lease before it builds a call to another system (the
          // downstream checks tokens, but under a key of its own choosing); a confirm that
          // throws ends the step with its error.
          confirm_now(world, ctx);
          ctx.env().sleep(rng->between(200, 2'500) * kMillisecond);  // builds the request
          const auto [lease, token, reply] = call_downstream(world, ctx, *downstream);
          if (reply.verdict == DownstreamSystem::Verdict::kRejected) {
            hand_over(world, ctx, lease, token, reply.seen, shapes->next(),
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
