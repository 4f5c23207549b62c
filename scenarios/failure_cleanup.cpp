#include "scenarios/failure_cleanup.h"

#include "scenarios/workload.h"

namespace fencesim::scenarios {

runtime::StepItem with_failure_cleanup(runtime::StepItem step, runtime::Nanoseconds cleanup) {
  runtime::StepBody wrapped = [cleanup, body = step.body](runtime::ExecutionContext& ctx) {
    std::exception_ptr failure;
    try {
      body(ctx);
    } catch (const std::exception&) {
      failure = std::current_exception();
    }
    if (!failure) return;
    // Outside the catch: a fiber never blocks inside one (fibers share its state).
    ctx.env().sleep(cleanup);
    std::rethrow_exception(failure);
  };
  return with_body(step, std::move(wrapped));
}

runtime::Nanoseconds draw_cleanup(sim::Rng& rng) {
  return rng.between(10, 3'000) * runtime::kMillisecond;
}

runtime::Workflow with_failure_cleanups(runtime::Workflow workflow, sim::Rng& rng) {
  for (runtime::WorkflowItem& item : workflow.items) {
    auto* step = std::get_if<runtime::StepItem>(&item);
    if (step == nullptr || rng.chance(0.25)) continue;
    *step = with_failure_cleanup(*step, draw_cleanup(rng));
  }
  return workflow;
}

}  // namespace fencesim::scenarios
