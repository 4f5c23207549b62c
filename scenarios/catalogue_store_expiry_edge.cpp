// The store's expiry instant, in the plain sweep (red team 29a). A lease is live at the store's
// `now` strictly before its expiry (runtime/lease.h); a store that still counted it live at the
// very instant of its expiry would renew a lease that had just expired ("a late or stale renewal
// never extends, resurrects or steals a lease", runtime/lease_repository.h). Only the exploration
// world `explore-renew-at-store-expiry` reached that instant, and a sweep runs exploration worlds
// only when named: a store that judged the edge with `<=` passed every default sweep. This story is
// that world's with its choices fixed: every message takes exactly 1 ms, and the holder is stopped
// right after it sends its first renewal for ttl - renew interval - one round trip, so that the
// held renewal reaches the lease store at the instant the store expires the lease. It must be
// refused (expired), and the holder's lease is lost; the tree completes under the next token.
#include "scenarios/builder.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios {

namespace store_expiry_edge {

using runtime::EventKind;
using runtime::kMillisecond;
using runtime::kSecond;

constexpr std::int64_t kEdgeLatencyNs = kMillisecond;

void edge_world(sim::WorldOptions& options) {
  options.network.latency_min_ns = kEdgeLatencyNs;
  options.network.latency_max_ns = kEdgeLatencyNs;
  options.lease.ttl_ns = 3 * kSecond;
  options.lease.renew_interval_ns = kSecond;
  options.liveness_budget_ns = 60 * kSecond;
}

}  // namespace store_expiry_edge

static void register_catalogue_store_expiry_edge(ScenarioRegistry& registry) {
  ScenarioBuilder("renewal-at-store-expiry")
      .describe(
          "holder 1 is stopped right after its first renewal leaves, for as long as makes the "
          "held renewal reach the lease store at the very instant the store expires the lease: "
          "refused as expired, never a renewal of an expired lease")
      .safety_phase(20 * kSecond)
      .options(store_expiry_edge::edge_world)
      .sink("payments")
      .instance("instance-1")
      .instance("instance-2", kSecond)  // starts later: holder 1 takes the tree first
      .workflow([](sim::World& world, sim::Rng&) {
        return runtime::Workflow{"order",
                                 {write_step(world, "charge", kSecond, "payments", "charge")}};
      })
      .tree("tenant-1", "order-1", "order")
      .faults([](sim::World& world, sim::Rng&) {
        // The take reaches the store at T + 1 ms (expiry T + 1 ms + ttl); its reply at T + 2 ms
        // starts the renewal timer; the first renewal leaves at T + 2 ms + renew interval + the
        // stop and reaches the store 1 ms later: T + 1 ms + ttl when the stop lasts
        // ttl - renew interval - 2 ms.
        const sim::LeaseTerms& lease = world.options().lease;
        sim::Fault fault{};
        fault.kind = sim::FaultKind::kStop;
        fault.node = "instance-1";
        fault.trigger = sim::Trigger{EventKind::kRenewSent, 1, 0, {}};
        fault.duration_ns =
            lease.ttl_ns - lease.renew_interval_ns - 2 * store_expiry_edge::kEdgeLatencyNs;
        return sim::FaultPlan{{fault}};
      })
      .marks({"late-renewal-refused >= 80%"})
      .add_to(registry);
}

// The one line that makes this file's scenarios built in (scenarios/scenario.h).
const ScenarioRegistration kCatalogueStoreExpiryEdgeRegistration(
    register_catalogue_store_expiry_edge);

}  // namespace fencesim::scenarios
