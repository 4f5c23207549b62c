#include "scenarios/watchful_step.h"

#include <algorithm>

#include "runtime/errors.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios {

bool look_at_signal(sim::World& world, runtime::ExecutionContext& ctx) {
  const bool aborted = ctx.signal().aborted();
  world.observe(ctx, sim::World::Observation{"signal",
                                             ctx.tree_key(),
                                             runtime::kTokenNone,
                                             {},
                                             {},
                                             world.true_now_ns(),
                                             aborted ? "aborted" : "live"});
  return aborted;
}

bool look_at_signal_reason(sim::World& world, runtime::ExecutionContext& ctx,
                           runtime::Token token) {
  const std::exception_ptr reason = ctx.signal().reason();
  std::string seen = "live";
  if (reason) {
    try {
      std::rethrow_exception(reason);
    } catch (const runtime::ExecutionError& error) {
      seen = std::string(error.code());
    } catch (const std::exception&) {
      seen = "error";
    }
  }
  world.observe(ctx, sim::World::Observation{"signal-reason", ctx.tree_key(), token, {}, {},
                                             world.true_now_ns(), std::move(seen)});
  return reason != nullptr;
}

runtime::StepItem watchful(sim::World& world, runtime::StepItem step, runtime::Nanoseconds watch) {
  runtime::StepBody wrapped = [&world, watch, body = step.body](runtime::ExecutionContext& ctx) {
    for (runtime::Nanoseconds left = watch; left > 0;) {
      const runtime::Nanoseconds chunk = std::min(left, runtime::kSecond);
      ctx.env().sleep(chunk);
      left -= chunk;
      if (look_at_signal(world, ctx)) std::rethrow_exception(ctx.signal().reason());
    }
    body(ctx);
  };
  return with_body(step, std::move(wrapped));
}

runtime::Workflow with_watchful_steps(sim::World& world, runtime::Workflow workflow,
                                      sim::Rng& rng) {
  for (runtime::WorkflowItem& item : workflow.items) {
    auto* step = std::get_if<runtime::StepItem>(&item);
    if (step == nullptr || !rng.chance(1.0 / 3)) continue;
    *step = watchful(world, *step, rng.between(1'000, 25'000) * runtime::kMillisecond);
  }
  return workflow;
}

}  // namespace fencesim::scenarios
