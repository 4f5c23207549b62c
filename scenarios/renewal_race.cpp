#include "scenarios/renewal_race.h"

#include "runtime/observer.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios {

using runtime::kMillisecond;
using runtime::kSecond;

runtime::StepItem racing_renewal(sim::World& world, runtime::StepItem step,
                                 runtime::Nanoseconds after) {
  runtime::StepBody wrapped = [&world, after, body = step.body](runtime::ExecutionContext& ctx) {
    const runtime::ExecutionFence fence = ctx.fence();
    const runtime::LeaseKey lease{fence.tenant_id(), fence.lease_execution_id()};
    // The timer sends the next renewal within one interval of the last reply (an RPC timeout
    // later if that one timed out). A wait that misses it (the node paused, the lease gone) only
    // loses the race: the body then meets whatever happened as it would have anyway.
    const sim::WorldOptions& options = world.options();
    const runtime::Nanoseconds wait =
        options.lease.renew_interval_ns + 2 * options.network.rpc_timeout_ns + kSecond;
    if (world.await_moment(ctx, runtime::EventKind::kRenewSent, lease, wait)) {
      world.mark(ctx, "step-raced-renewal");
      if (after > 0) ctx.env().sleep(after);
    }
    body(ctx);
  };
  return with_body(step, std::move(wrapped));
}

runtime::Nanoseconds draw_race_delay(sim::Rng& rng) {
  if (rng.chance(0.4)) return 0;
  return rng.chance(0.5) ? rng.between(1, 5) * kMillisecond : rng.between(5, 40) * kMillisecond;
}

runtime::Workflow with_renewal_races(sim::World& world, runtime::Workflow workflow, sim::Rng& rng) {
  for (runtime::WorkflowItem& item : workflow.items) {
    auto* step = std::get_if<runtime::StepItem>(&item);
    if (step == nullptr || !rng.chance(0.25)) continue;
    *step = racing_renewal(world, *step, draw_race_delay(rng));
  }
  return workflow;
}

}  // namespace fencesim::scenarios
