// The catalogue's stories about a tree's children: AnyInstance children under leases of their own,
// ParentInstance branches under the root's, and what a failure of several branches at once is.
#include "scenarios/builder.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios {

using runtime::ChildPlacement;
using runtime::EventKind;
using runtime::GroupItem;
using runtime::kMillisecond;
using runtime::kSecond;
using runtime::Workflow;

static void register_catalogue_children(ScenarioRegistry& registry) {
  // The root's wait yields and retakes (its epoch moves to 2) while each child writes under its
  // own lease at its own epoch, to the sink the root writes to: a high-water mark keyed by
  // anything wider than the scope key refuses a healthy child.
  ScenarioBuilder("anyinstance-independent-epochs")
      .describe(
          "AnyInstance children under leases of their own write to the root's sink at epochs "
          "independent of the root's (moved on by a yield) and of each other: nobody is fenced")
      .safety_phase(120 * kSecond)
      .sink("ledger")
      .instances(2)
      .workflow([](sim::World& world, sim::Rng&) {
        return Workflow{"entry", {write_step(world, "entry", kSecond, "ledger", "child entry")}};
      })
      .workflow([](sim::World& world, sim::Rng&) {
        return Workflow{
            "order",
            {GroupItem{"invoices", {{"invoice", ChildPlacement::kAnyInstance, "entry"}}},
             write_step(world, "charge", kSecond, "ledger", "root charge"),
             GroupItem{"refunds", {{"refund", ChildPlacement::kAnyInstance, "entry"}}},
             write_step(world, "ship", kSecond, "ledger", "root ship")}};
      })
      .tree("tenant-1", "order-1", "order")
      .tree("tenant-1", "order-2", "order", 2 * kSecond)
      // Whoever holds what on instance-2 first goes stale: a child or a root moves to epoch 2.
      .fault(stall("instance-2")
                 .after(EventKind::kLeaseTaken)
                 .lasting_between(31 * kSecond, 45 * kSecond))
      // measured over seeds 1..1000: independent-epochs 100%, lease-yielded 100%
      .marks({"independent-epochs >= 95%", "lease-yielded >= 95%"})
      .add_to(registry);

  // A ParentInstance branch waits for an AnyInstance child while its sibling branch's step runs:
  // the root's lease is kept until that step ended, and yielded only then.
  ScenarioBuilder("yield-deferred-for-sibling")
      .describe(
          "a ParentInstance branch waits for a remote child while a sibling branch's step runs: "
          "the root's lease is not yielded until no step of the tree runs")
      .safety_phase(120 * kSecond)
      .sink("ledger")
      .instances(2)
      .workflow([](sim::World&, sim::Rng&) {
        return Workflow{"review", {work_step("review", 15 * kSecond)}};
      })
      .workflow([](sim::World& world, sim::Rng&) {
        return Workflow{"remote",
                        {work_step("work", 25 * kSecond),
                         write_step(world, "post", kSecond, "ledger", "remote post")}};
      })
      .workflow([](sim::World&, sim::Rng&) {
        return Workflow{
            "fan-out",
            {work_step("prepare", 2 * kSecond),
             GroupItem{"remote", {{"invoice", ChildPlacement::kAnyInstance, "remote"}}}}};
      })
      .workflow([](sim::World& world, sim::Rng&) {
        return Workflow{"order",
                        {GroupItem{"children",
                                   {{"audit", ChildPlacement::kParentInstance, "review"},
                                    {"fan-out", ChildPlacement::kParentInstance, "fan-out"}}},
                         write_step(world, "ship", kSecond, "ledger", "ship")}};
      })
      .tree("tenant-1", "order-1", "order")
      // measured over seeds 1..1000: yield-deferred 100%, lease-yielded 100%
      .marks({"yield-deferred >= 95%", "lease-yielded >= 95%"})
      .add_to(registry);

  // Two branches fail together after the lease expired locally. The pay branch's write is slowed
  // past the lease: its call ends at the abort (lease-lost) with the request left in flight, which
  // the sink refuses (the next holder wrote first); the refusal comes back about 90 to 120 s in,
  // while the archive branch's long step still runs (130 s, it does not watch its signal), so
  // that branch ends after the refusal stopped the holder. The abort signal's reason is a plain
  // lease-lost; the refusal sits inside the aggregate only, and the pass is still fenced.
  ScenarioBuilder("aggregate-refusal-after-expiry")
      .describe(
          "a branch's write is slowed past the lease and refused after the takeover while a "
          "sibling branch's long step outlives the refusal: fenced, found inside the aggregate, "
          "not the abort reason")
      .safety_phase(170 * kSecond)
      .sink("payments")
      .instance("instance-1")
      .instance("instance-2", 5 * kSecond)
      .workflow([](sim::World& world, sim::Rng&) {
        return Workflow{"charge", {write_step(world, "charge", kSecond, "payments", "charge")}};
      })
      .workflow([](sim::World&, sim::Rng&) {
        return Workflow{"archive", {work_step("archive", 130 * kSecond)}};
      })
      .workflow([](sim::World&, sim::Rng&) {
        return Workflow{"order",
                        {work_step("reserve", 500 * kMillisecond),
                         GroupItem{"children",
                                   {{"pay", ChildPlacement::kParentInstance, "charge"},
                                    {"archive", ChildPlacement::kParentInstance, "archive"}}}}};
      })
      .tree("tenant-1", "order-1", "order")
      .fault(network_delay("instance-1")
                 .after(EventKind::kWriteSent)
                 .lasting(120 * kSecond)
                 .amount_between(45 * kSecond, 60 * kSecond))
      .options([](sim::WorldOptions& o) { o.network.rpc_timeout_ns = 150 * kSecond; })
      // measured over seeds 1..1000: expiry-during-write 100%, stale-write-refused 100%,
      // fenced-after-local-expiry 100%
      .marks({"expiry-during-write >= 95%", "stale-write-refused >= 95%",
              "fenced-after-local-expiry >= 95%"})
      .add_to(registry);
}

// The one line that makes this file's scenarios built in (scenarios/scenario.h).
const ScenarioRegistration kCatalogueChildrenRegistration(register_catalogue_children);

}  // namespace fencesim::scenarios
