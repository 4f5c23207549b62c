// The catalogue's stories about using the fence itself: where a fence may be used, what a
// failure is classified as, and what a withdrawal runs with.
#include <exception>
#include <memory>

#include "runtime/errors.h"
#include "scenarios/builder.h"
#include "scenarios/order_workflow.h"
#include "scenarios/swarm_workload.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios {

using runtime::ChildPlacement;
using runtime::EventKind;
using runtime::ExecutionContext;
using runtime::kSecond;

static void register_catalogue_fence_use(ScenarioRegistry& registry) {
  // A fence kept past its step, an ancestor's fence, and a frame without a held lease.
  auto kept = std::make_shared<std::optional<runtime::ExecutionFence>>();
  ScenarioBuilder("fence-scoping")
      .describe(
          "a step keeps its fence for a later step, a nested level uses its ancestor's "
          "fence, a withdrawal after the tree ended asks for one: each refuses")
      .safety_phase(60 * kSecond)
      .sink("payments")
      .instances(2)
      .workflow([kept](sim::World&, sim::Rng&) {
        return runtime::Workflow{
            "level",
            {runtime::StepItem{"nested", [](ExecutionContext& ctx) { ctx.env().sleep(kSecond); }}}};
      })
      .workflow([kept](sim::World& world, sim::Rng&) {
        return runtime::Workflow{
            "order",
            {runtime::StepItem{"keep", [kept](ExecutionContext& ctx) { *kept = ctx.fence(); }},
             runtime::StepItem{"reuse",
                               [kept, &world](ExecutionContext& ctx) {
                                 expect_unavailable(
                                     world, ctx, [&] { (void)(*kept)->token(); },
                                     "kept-fence-refused");
                                 expect_unavailable(
                                     world, ctx, [&] { (void)ctx.parent().fence().token(); },
                                     "ancestor-fence-refused");
                               }},
             runtime::GroupItem{"levels", {{"inner", ChildPlacement::kThisWorkflow, "level"}}}}};
      })
      .tree("tenant-1", "order-1", "order")
      .setup([](sim::World& world) {
        for (const char* instance : {"instance-1", "instance-2"}) {
          world.withdraw_at(50 * kSecond, instance, runtime::LeaseKey{"tenant-1", "order-1"},
                            "keep", [&world](ExecutionContext& ctx) {
                              expect_unavailable(
                                  world, ctx, [&] { (void)ctx.fence().token(); },
                                  "unfenced-withdrawal-refused");
                            });
        }
      })
      // measured over seeds 1..1000: kept-fence-refused 100%, ancestor-fence-refused 100%,
      // unfenced-withdrawal-refused 100%
      .marks({"kept-fence-refused >= 95%", "ancestor-fence-refused >= 95%",
              "unfenced-withdrawal-refused >= 95%"})
      .add_to(registry);

  // A withdrawal inside a pass runs with its step's fence.
  ScenarioBuilder("withdrawal-inside-pass")
      .describe(
          "a withdrawal arrives while a step runs: it runs in that step's frame, with its "
          "fence, and its write is fenced like the step's")
      .safety_phase(60 * kSecond)
      .sink("payments")
      .instance("instance-1")
      .workflow([](sim::World& world, sim::Rng&) {
        return runtime::Workflow{"order",
                                 {work_step("long", 20 * kSecond),
                                  write_step(world, "charge", kSecond, "payments", "x")}};
      })
      .tree("tenant-1", "order-1", "order")
      .setup([](sim::World& world) {
        world.withdraw_at(5 * kSecond, "instance-1", runtime::LeaseKey{"tenant-1", "order-1"},
                          "long", [&world](ExecutionContext& ctx) {
                            write_withdrawal_effect(world, ctx, "payments", "withdrawal",
                                                    "withdrawal");
                            world.mark(ctx, "fenced-withdrawal-written");
                          });
      })
      // measured over seeds 1..1000: fenced-withdrawal-written 100%
      .marks({"fenced-withdrawal-written >= 95%"})
      .add_to(registry);

  // A refusal wrapped in causes and an aggregate, while the abort fired with another reason. The
  // write's request is slowed past the lease, so its call ends at the lease's local expiry
  // (lease-lost, the signal's reason); the step keeps working, and when it checks its fence again
  // (after the refusal came back and stopped the holder) it meets the refusal, which it wraps in a
  // step error inside an aggregate: still classified as fenced.
  ScenarioBuilder("fenced-in-aggregate")
      .describe(
          "a stale holder's write ends at the local expiry; the step keeps working, meets the "
          "refusal that landed later when it checks its fence, and wraps it in a step error "
          "inside an aggregate: still classified as fenced")
      .safety_phase(170 * kSecond)
      .sink("payments")
      .instance("instance-1")
      .instance("instance-2", 5 * kSecond)
      .workflow([](sim::World& world, sim::Rng&) {
        return runtime::Workflow{
            "order",
            {runtime::StepItem{
                "charge", [&world](ExecutionContext& ctx) {
                  ctx.env().sleep(kSecond);
                  std::exception_ptr refusal;
                  bool lost = false;
                  try {
                    write_effect(world, ctx, "payments", "charge", "charge");
                  } catch (const runtime::ExecutionFencedError&) {
                    refusal = std::current_exception();
                  } catch (const runtime::ExecutionLeaseLostError&) {
                    lost = true;  // ended at the abort: the request is still in flight
                  }
                  if (lost) {
                    // Other work of the step, then a check of the fence before its next call.
                    ctx.env().sleep(130 * kSecond);
                    try {
                      ctx.fence().assert_held();
                    } catch (const runtime::ExecutionFencedError&) {
                      refusal = std::current_exception();
                    }
                  }
                  if (!refusal) return;
                  world.mark(ctx, "fenced-error-wrapped");
                  const std::exception_ptr aggregate =
                      std::make_exception_ptr(runtime::AggregateError(
                          {std::make_exception_ptr(runtime::StepError("audit failed")),
                           std::make_exception_ptr(runtime::StepError("charge failed", refusal))}));
                  // Red team 33b: the refusal dropped from the step error, the pass was still
                  // classified fenced (its holder had been stopped) and every claim stayed met.
                  // The walk is the workload's own (for_each_error), not the runtime's search.
                  bool holds = false;
                  for_each_error(aggregate, [&](const std::exception_ptr& each, const auto&) {
                    holds |= each == refusal;
                  });
                  if (holds) world.mark(ctx, "refusal-inside-aggregate");
                  std::rethrow_exception(aggregate);
                }}}};
      })
      .tree("tenant-1", "order-1", "order")
      .fault(network_delay("instance-1")
                 .after(EventKind::kWriteSent)
                 .lasting(120 * kSecond)
                 .amount_between(45 * kSecond, 60 * kSecond))
      .options([](sim::WorldOptions& o) { o.network.rpc_timeout_ns = 150 * kSecond; })
      // measured over seeds 1..1000: fenced-error-wrapped 100%, stale-write-refused 100%,
      // fenced-after-local-expiry 100%
      .marks({"fenced-error-wrapped >= 95%", "stale-write-refused >= 95%",
              "fenced-after-local-expiry >= 95%", "refusal-inside-aggregate >= 95%"})
      .add_to(registry);
}

// The one line that makes this file's scenarios built in (scenarios/scenario.h).
const ScenarioRegistration kCatalogueFenceUseRegistration(register_catalogue_fence_use);

}  // namespace fencesim::scenarios
