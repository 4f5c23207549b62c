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
                             ctx.fence().write(world.sink(ctx, sink), payload);
                           }};
}

}  // namespace fencesim::scenarios
