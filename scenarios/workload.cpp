#include "scenarios/workload.h"

namespace fencesim::scenarios {

runtime::StepItem work_step(std::string name, runtime::Nanoseconds duration) {
  return runtime::StepItem{
      std::move(name), [duration](runtime::ExecutionContext& ctx) { ctx.env().sleep(duration); }};
}

runtime::StepItem write_step(sim::World& world, std::string name, runtime::Nanoseconds duration,
                             std::string sink, std::string payload) {
  return runtime::StepItem{std::move(name),
                           [&world, duration, sink = std::move(sink),
                            payload = std::move(payload)](runtime::ExecutionContext& ctx) {
                             ctx.env().sleep(duration);
                             write_effect(world, ctx, sink, "write", payload);
                           }};
}

runtime::SinkReply write_effect(sim::World& world, runtime::ExecutionContext& ctx,
                                const std::string& sink, std::string_view effect,
                                const std::string& payload) {
  const runtime::ExecutionFence fence = ctx.fence();
  world.intend(ctx, sink, effect, payload, fence.token());
  return fence.write(world.sink(ctx, sink), effect, payload);
}

}  // namespace fencesim::scenarios
