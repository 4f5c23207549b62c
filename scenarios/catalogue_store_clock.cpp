// The lease store's wall clock leaps forward past a lease (an NTP step, a VM restored from a
// snapshot): outside the clock assumptions, the store expires the lease while its holder still
// believes it (confirmedUntil counted on the holder's own clock). The holder learns it only from
// its next renewal, which the store refuses (expired; stale once the other instance took the key
// over): a loss the refusal causes, reported after the refusal (loss-after-its-cause), never a
// loss of a lease the holder's clock says it still has without a refusal to say so. Until session
// 32 only the swarm (6 seeds in 100) refused a renewal its holder still believed, the one moment
// where red team 31a's bug 36 (the loss reported before its refusal) shows.
#include "scenarios/builder.h"
#include "scenarios/fault_spec.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios {

using runtime::EventKind;
using runtime::kSecond;

static void register_catalogue_store_clock(ScenarioRegistry& registry) {
  ScenarioBuilder("store-clock-leaps")
      .describe(
          "the lease store's wall clock leaps forward past the lease right after holder 1's "
          "first renewal: the store expires a lease its holder still believes, the next renewal "
          "is refused, and the holder loses the lease by that refusal, reported after it")
      .safety_phase(150 * kSecond)
      .sink("payments")
      .instance("instance-1")
      .instance("instance-2", 5 * kSecond)
      .workflow([](sim::World& world, sim::Rng&) {
        return runtime::Workflow{
            "order",
            {work_step("reserve", kSecond), work_step("assemble", 60 * kSecond),
             write_step(world, "charge", kSecond, "payments", "charge 42 EUR")}};
      })
      .tree("tenant-1", "order-1", "order")
      .fault(clock_step("lease-store")
                 .after_at("instance-1", EventKind::kLeaseRenewed)
                 .amount_between(31 * kSecond, 60 * kSecond))
      // measured over seeds 1..400: late-renewal-refused 100%, takeover-mid-step 100%
      .marks({"late-renewal-refused >= 95%", "takeover-mid-step >= 90%"})
      .add_to(registry);
}

// The one line that makes this file's scenarios built in (scenarios/scenario.h).
const ScenarioRegistration kCatalogueStoreClockRegistration(register_catalogue_store_clock);

}  // namespace fencesim::scenarios
