// Kleppmann's fencing story: holder 1 stalls past its lease mid-step, with its write already on
// its way; holder 2 takes the tree with the next token and writes; holder 1 wakes and its write
// with the old token reaches the sink, which refuses it. The tree completes once.
#include "scenarios/scenario.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios {

using runtime::kMillisecond;
using runtime::kSecond;

void register_kleppmann_fencing(ScenarioRegistry& registry) {
  registry.add(Scenario{
      "kleppmann-fencing",
      "holder 1 stalls past its lease with a write in flight; holder 2 takes over and writes; "
      "the stale write is refused",
      [](sim::WorldOptions& options) { options.safety_phase_ns = 90 * kSecond; },
      [](sim::World& world) {
        world.add_lease_store();
        world.add_sink("payments");
        world.add_instance("instance-1");
        // Holder 2 starts later, so that holder 1 is the one that takes the tree first.
        world.add_instance("instance-2", 5 * kSecond);
        sim::Rng workload = world.stream("workload");
        const auto work_ns = workload.between(500, 3000) * kMillisecond;
        world.workflows().add(runtime::Workflow{
            "order",
            {work_step("reserve", work_ns),
             write_step(world, "charge", work_ns, "payments", "charge 42 EUR"),
             work_step("ship", work_ns)}});
        world.submit(runtime::LeaseKey{"tenant-1", "order-1"}, "order");
        sim::Rng faults = world.stream("faults");
        sim::Fault stall{sim::FaultKind::kStall, "instance-1", {}, 0,
                         sim::Trigger{runtime::EventKind::kWriteSent, 1, 0},
                         faults.between(35, 60) * kSecond, 0, 0};
        world.set_fault_plan(sim::FaultPlan{{stall}});
      },
      {"stale-write-refused", "takeover-mid-step"}});
}

}  // namespace fencesim::scenarios
