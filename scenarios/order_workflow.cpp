#include "scenarios/order_workflow.h"

#include "scenarios/workload.h"

namespace fencesim::scenarios {

runtime::Workflow order_workflow(sim::World& world, sim::Rng& workload, const std::string& sink) {
  const auto work_ns = workload.between(500, 3000) * runtime::kMillisecond;
  return runtime::Workflow{
      "order",
      {work_step("reserve", work_ns), write_step(world, "charge", work_ns, sink, "charge 42 EUR"),
       work_step("ship", work_ns)}};
}

runtime::Workflow quick_order(sim::World& world) {
  return runtime::Workflow{"order",
                           {work_step("prepare", runtime::kSecond),
                            write_step(world, "charge", runtime::kSecond, "payments", "charge")}};
}

}  // namespace fencesim::scenarios
