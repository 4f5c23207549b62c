#pragma once
// The small world several sim tests run their faults in: one lease store, one instance
// ("instance-1") running one tree ("order" at (tenant-1, order-1)) whose one step wakes once a
// second for `step_seconds` s, renewing its lease every 10 s meanwhile (takes at 0 s, renewals
// near 10 s, 20 s, ...). One definition, so that each test says only what it changes.
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "runtime/execution_context.h"
#include "sim/world.h"

namespace fencesim::sim::testing {

struct OneStepWorld {
  std::uint64_t seed = 11;
  std::int64_t safety_phase_ns = 40 * runtime::kSecond;
  int step_seconds = 25;
  ChoiceSource* chooser = nullptr;
  std::function<void(World&)> in_step;  // runs inside the step, before its first wake-up
};

struct RanWorld {
  std::unique_ptr<World> world;
  NodeId instance = kWorldNode;
};

// Runs the world under `faults` to its end.
inline RanWorld run_one_step_world(const OneStepWorld& shape, std::vector<Fault> faults) {
  WorldOptions options;
  options.seed = shape.seed;
  options.chooser = shape.chooser;
  options.safety_phase_ns = shape.safety_phase_ns;
  options.liveness_budget_ns = 120 * runtime::kSecond;
  auto world = std::make_unique<World>(options);
  world->add_lease_store();
  const NodeId instance = world->add_instance("instance-1");
  World* in = world.get();
  world->workflows().add(runtime::Workflow{
      "order", {runtime::StepItem{"wait", [in, shape](runtime::ExecutionContext& ctx) {
                                    if (shape.in_step) shape.in_step(*in);
                                    for (int i = 0; i < shape.step_seconds; ++i) {
                                      ctx.env().sleep(runtime::kSecond);
                                    }
                                  }}}});
  world->submit(runtime::LeaseKey{"tenant-1", "order-1"}, "order");
  world->set_fault_plan(FaultPlan{std::move(faults)});
  world->run();
  return RanWorld{std::move(world), instance};
}

// The true times of the history's events of `kind`, in order.
inline std::vector<std::int64_t> times_of(const World& world, WorldEventKind kind) {
  std::vector<std::int64_t> times;
  for (const HistoryEvent& e : world.history().events()) {
    if (e.world == kind) times.push_back(e.time_ns);
  }
  return times;
}

}  // namespace fencesim::sim::testing
