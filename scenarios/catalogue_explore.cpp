// Six small worlds for `fencesim explore` (docs/explore.md), small enough to explore completely
// within a delay bound on one core. Every message takes exactly 1 ms, so that the moments a story
// is about fall on the same virtual instant and the order of the fibers runnable there is a real
// choice; the fault plan is built from World::choose (which node, which trigger, which occurrence,
// and a duration from a small set around the lease's boundaries), so an explorer enumerates it.
// A plain `run` or a sweep draws each choice from the seed instead. They are in the default sweep
// too: the fixed latency makes two timelines meet at one instant, which the other scenarios'
// random latencies never do, so a bug that lives only at such an instant (a store that judged a
// lease live at its expiry instant, red team 29a) escaped every plain sweep while they were
// exploration-only. One story is also here with its choices fixed (renewal-at-store-expiry), so
// that the boundary it is about is reached by every seed, not one in three.
#include <array>

#include "scenarios/builder.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios {

using runtime::ChildPlacement;
using runtime::EventKind;
using runtime::GroupItem;
using runtime::kMillisecond;
using runtime::kSecond;
using runtime::Workflow;

namespace {

constexpr std::int64_t kLatencyNs = kMillisecond;
constexpr std::int64_t kTtlNs = 3 * kSecond;
constexpr std::int64_t kRenewNs = 1 * kSecond;
// explore-yield-sibling: the audit step's length that makes it end at fan-out's second poll. Both
// branches' first steps start together; fan-out's "prepare" (1 s), its checkpoint (a 2 ms round
// trip) and placing its child (2 ms) bring it to the wait's first decision; one poll later (the
// child's load, 2 ms, and the poll interval, 1 s) comes the second: 2.006 s after the start.
constexpr std::int64_t kAuditAtPoll = 2 * kSecond + 3 * 2 * kLatencyNs;

void small_world(sim::WorldOptions& options) {
  options.network.latency_min_ns = kLatencyNs;
  options.network.latency_max_ns = kLatencyNs;
  options.lease.ttl_ns = kTtlNs;
  options.lease.renew_interval_ns = kRenewNs;
  options.liveness_budget_ns = 60 * kSecond;
}

// Pause durations around the lease's boundaries: well inside the holder's belief, just inside it
// (confirmedUntil is ttl less the drift margin), just past the store's expiry, and past the point
// where the next holder has taken the tree and written.
std::array<std::int64_t, 4> durations_around_lease(const sim::WorldOptions& options) {
  const std::int64_t belief = options.lease.ttl_ns - options.lease.drift_margin_ns();
  return {kSecond, belief - 5 * kMillisecond, options.lease.ttl_ns + 5 * kMillisecond,
          2 * options.lease.ttl_ns + kSecond};
}

// A stop of one of `nodes`, after the `occurrence`-th of one of `events` at that node, lasting
// one of durations_around_lease: every part chosen through World::choose.
sim::Fault chosen_stop(sim::World& world, const std::vector<std::string>& nodes,
                       const std::vector<EventKind>& events, int occurrences) {
  sim::Fault fault{};
  fault.kind = sim::FaultKind::kStop;
  fault.node = nodes[world.choose("stopped node", nodes.size())];
  sim::Trigger trigger{};
  trigger.event = events[world.choose("trigger event", events.size())];
  trigger.occurrence = 1 + static_cast<int>(world.choose("trigger occurrence",
                                                         static_cast<std::size_t>(occurrences)));
  fault.trigger = trigger;
  const auto durations = durations_around_lease(world.options());
  fault.duration_ns = durations[world.choose("stop duration", durations.size())];
  return fault;
}

// Every small world: two instances, one sink, a 20 s safety phase and small_world's options.
ScenarioBuilder small_world_scenario(std::string name, std::string sink, std::string description) {
  ScenarioBuilder builder(std::move(name));
  builder.describe(std::move(description))
      .safety_phase(20 * kSecond)
      .options(small_world)
      .sink(std::move(sink))
      .instances(2);
  return builder;
}

// How long a holder stopped right after its first renewal leaves must stay stopped for the held
// renewal to reach the lease store at the very instant the store expires the lease: the take
// reaches the store at T + 1 ms (expiry T + 1 ms + ttl), its reply at T + 2 ms starts the renewal
// timer, and the renewal leaves at T + 2 ms + renew interval + the stop and lands 1 ms later.
std::int64_t stop_to_store_expiry(const sim::LeaseTerms& lease) {
  return lease.ttl_ns - lease.renew_interval_ns - 2 * kLatencyNs;
}

}  // namespace

static void register_catalogue_explore(ScenarioRegistry& registry) {
  // Two instances poll the queue at the same instants and race for the one tree; whoever holds it
  // is stopped at a chosen protocol moment for a chosen time around the lease's boundaries.
  small_world_scenario(
      "explore-two-holders-pause", "payments",
      "exploration: two holders race for one tree; one is stopped at a chosen protocol "
      "moment for a time around the lease's boundaries")
      .workflow([](sim::World& world, sim::Rng&) {
        return Workflow{"order", {write_step(world, "charge", kSecond, "payments", "charge")}};
      })
      .tree("tenant-1", "order-1", "order")
      .faults([](sim::World& world, sim::Rng&) {
        return sim::FaultPlan{{chosen_stop(
            world, {"instance-1", "instance-2"},
            {EventKind::kLeaseTaken, EventKind::kWriteSent, EventKind::kCheckpointSent}, 1)}};
      })
      .marks({"renewal-raced-expiry", "expiry-during-write"})
      .add_to(registry);

  // The tree's two ParentInstance branches run together: "audit" works, "fan-out" prepares and
  // then waits for an AnyInstance child, deciding at each poll whether it may yield the root's
  // lease. The audit step's length is chosen: with kAuditAtPoll it ends (and its checkpoint
  // leaves) at the very instant of one of fan-out's polls, so the order of the two fibers runnable
  // there decides whether the sibling's checkpoint is in flight when the yield is decided.
  small_world_scenario(
      "explore-yield-sibling", "ledger",
      "exploration: a remote-children wait decides to yield at the instant a sibling "
      "branch's step ends and its checkpoint leaves")
      .workflow([](sim::World& world, sim::Rng&) {
        constexpr std::array<std::int64_t, 2> kAudit{kAuditAtPoll, kAuditAtPoll + kSecond / 2};
        return Workflow{"review",
                        {work_step("review", kAudit[world.choose("audit length", kAudit.size())])}};
      })
      .workflow([](sim::World& world, sim::Rng&) {
        return Workflow{"remote", {write_step(world, "work", 2 * kSecond, "ledger", "remote")}};
      })
      .workflow([](sim::World&, sim::Rng&) {
        return Workflow{
            "fan-out",
            {work_step("prepare", kSecond),
             GroupItem{"remote", {{"invoice", ChildPlacement::kAnyInstance, "remote"}}}}};
      })
      .workflow([](sim::World& world, sim::Rng&) {
        return Workflow{"order",
                        {GroupItem{"children",
                                   {{"audit", ChildPlacement::kParentInstance, "review"},
                                    {"fan-out", ChildPlacement::kParentInstance, "fan-out"}}},
                         write_step(world, "ship", 100 * kMillisecond, "ledger", "ship")}};
      })
      .tree("tenant-1", "order-1", "order")
      .marks({"lease-yielded", "yield-deferred"})
      .add_to(registry);

  // Two ParentInstance branches each wait for an AnyInstance child of their own; the children run
  // the same work, so both waits end at the same poll, and one of them retakes the root's lease
  // while the other waits for that take. A stop of a chosen instance at a chosen moment of the
  // children's lives, for a time around the lease's boundaries, moves who holds what.
  small_world_scenario(
      "explore-two-remote-waits", "ledger",
      "exploration: two branches wait on remote children that end together; a chosen "
      "instance is stopped at a chosen moment")
      .workflow([](sim::World& world, sim::Rng&) {
        return Workflow{"child", {write_step(world, "work", 2 * kSecond, "ledger", "child")}};
      })
      .workflow([](sim::World&, sim::Rng&) {
        return Workflow{"wait-a",
                        {GroupItem{"remote", {{"a", ChildPlacement::kAnyInstance, "child"}}}}};
      })
      .workflow([](sim::World&, sim::Rng&) {
        return Workflow{"wait-b",
                        {GroupItem{"remote", {{"b", ChildPlacement::kAnyInstance, "child"}}}}};
      })
      .workflow([](sim::World& world, sim::Rng&) {
        return Workflow{"order",
                        {GroupItem{"branches",
                                   {{"left", ChildPlacement::kParentInstance, "wait-a"},
                                    {"right", ChildPlacement::kParentInstance, "wait-b"}}},
                         write_step(world, "ship", 100 * kMillisecond, "ledger", "ship")}};
      })
      .tree("tenant-1", "order-1", "order")
      .faults([](sim::World& world, sim::Rng&) {
        return sim::FaultPlan{
            {chosen_stop(world, {"instance-1", "instance-2"},
                         {EventKind::kRemoteWaitBegan, EventKind::kLeaseTaken}, 2)}};
      })
      .marks({"lease-yielded", "independent-epochs"})
      .add_to(registry);

  // The lease's belief ends while its holder runs: the lease store goes down for a ttl right after
  // it answers the holder's first renewal (the trigger is at a chosen instance: whichever takes
  // the tree first is explored both ways), so the next renewal is lost and the lease expires
  // locally at confirmedUntil = that renewal's send + ttl - drift margin. The step's write is
  // timed from the step's own start to leave at that very instant (or one round trip before or
  // after it: chosen). Two timelines meet there, the renewal timer's (take, 1 s, renewal) and the
  // step's (take, pass-start load, step-start cancel read, the step's work), so the expiry
  // watchdog and the step are runnable at one instant and their order is a real choice.
  small_world_scenario(
      "explore-write-at-expiry", "payments",
      "exploration: a step's write leaves at the very instant its lease's belief ends, the "
      "lease store having gone down after the first renewal")
      .workflow([](sim::World& world, sim::Rng&) {
        // The take is sent at T; its reply (T + 2 ms) starts the renewal timer and the pass.
        // The first renewal leaves at T + 2 ms + renew interval, so the belief ends at T + 2 ms
        // + renew interval + (ttl - margin). The step starts after the pass's load and the step
        // start's cancel read (T + 6 ms) and writes after its work: the work that makes the
        // write leave at the belief's end is renew interval + (ttl - margin) - 4 ms (3.980 s).
        const sim::LeaseTerms& lease = world.options().lease;
        const std::int64_t write_at_expiry =
            lease.renew_interval_ns + (lease.ttl_ns - lease.drift_margin_ns()) - 4 * kLatencyNs;
        const std::array<std::int64_t, 3> work{write_at_expiry - 2 * kLatencyNs, write_at_expiry,
                                               write_at_expiry + 2 * kLatencyNs};
        return Workflow{
            "order",
            {write_step(world, "charge", work[world.choose("write at", 3)], "payments", "charge")}};
      })
      .tree("tenant-1", "order-1", "order")
      .faults([](sim::World& world, sim::Rng&) {
        const std::array<const char*, 2> instances{"instance-1", "instance-2"};
        sim::Fault fault{};
        fault.kind = sim::FaultKind::kStoreDown;
        fault.node = "lease-store";
        fault.duration_ns = world.options().lease.ttl_ns;
        fault.trigger = sim::Trigger{EventKind::kLeaseRenewed, 1, 0,
                                     instances[world.choose("outage after the renewal of", 2)]};
        return sim::FaultPlan{{fault}};
      })
      // A schedule where the write's check meets the belief's end (a floor: the instant the
      // story is for; explore's output says how many of its schedules reached it).
      .marks({"write-attempted-at-belief-end"})
      .add_to(registry);

  // A holder is stopped right after it sends its first renewal, which leaves when it resumes. The
  // stop lasts ttl - renew interval - one round trip (1.998 s), or one round trip less or more
  // (chosen): with 1.998 s the held renewal reaches the lease store at the very instant the store
  // expires the lease (the take's receipt + ttl). Two timelines meet at the store: the take's
  // receipt plus the ttl, and the renewal timer's send plus the stop plus the latency.
  small_world_scenario(
      "explore-renew-at-store-expiry", "payments",
      "exploration: a renewal held by a stop of its holder reaches the lease store at the "
      "instant the store expires the lease")
      .workflow([](sim::World& world, sim::Rng&) {
        return Workflow{"order", {write_step(world, "charge", kSecond, "payments", "charge")}};
      })
      .tree("tenant-1", "order-1", "order")
      .faults([](sim::World& world, sim::Rng&) {
        const std::int64_t at_store_expiry = stop_to_store_expiry(world.options().lease);
        const std::array<std::int64_t, 3> stops{at_store_expiry - 2 * kLatencyNs, at_store_expiry,
                                                at_store_expiry + 2 * kLatencyNs};
        const std::array<const char*, 2> instances{"instance-1", "instance-2"};
        sim::Fault fault{};
        fault.kind = sim::FaultKind::kStop;
        fault.node = instances[world.choose("stopped node", 2)];
        fault.trigger = sim::Trigger{EventKind::kRenewSent, 1, 0, {}};
        fault.duration_ns = stops[world.choose("stop duration", 3)];
        return sim::FaultPlan{{fault}};
      })
      .add_to(registry);

  // The same story with its choices fixed, for the plain sweep (red team 29a): exploration worlds
  // run in a sweep only when named, so a store that judged a lease live at its expiry instant
  // (`<=` in Lease::live_at) passed every default sweep. Holder 1 is stopped for exactly the time
  // that lands its held renewal at the store's expiry instant: it must be refused (expired) and
  // the lease lost; the tree completes under the next token.
  ScenarioBuilder("renewal-at-store-expiry")
      .describe(
          "holder 1 is stopped right after its first renewal leaves, for as long as makes the "
          "held renewal reach the lease store at the very instant the store expires the lease: "
          "refused as expired, never a renewal of an expired lease")
      .safety_phase(20 * kSecond)
      .options(small_world)
      .sink("payments")
      .instance("instance-1")
      .instance("instance-2", kSecond)  // starts later: holder 1 takes the tree first
      .workflow([](sim::World& world, sim::Rng&) {
        return Workflow{"order", {write_step(world, "charge", kSecond, "payments", "charge")}};
      })
      .tree("tenant-1", "order-1", "order")
      .faults([](sim::World& world, sim::Rng&) {
        sim::Fault fault{};
        fault.kind = sim::FaultKind::kStop;
        fault.node = "instance-1";
        fault.trigger = sim::Trigger{EventKind::kRenewSent, 1, 0, {}};
        fault.duration_ns = stop_to_store_expiry(world.options().lease);
        return sim::FaultPlan{{fault}};
      })
      .marks({"late-renewal-refused >= 95%", "renewal-at-store-expiry-instant >= 95%"})
      .add_to(registry);

  // A step confirms its lease (confirmNow: a strict renewal) and then writes; the holder is
  // stopped at a chosen moment around that confirm for a time around the lease's boundaries.
  small_world_scenario(
      "explore-confirm-stop", "payments",
      "exploration: a step's confirmNow races a stop of its holder, chosen around the "
      "confirm and the lease's boundaries")
      .workflow([](sim::World& world, sim::Rng&) {
        return Workflow{"order",
                        {declared_step("charge", {{"payments", "write"}},
                                       [&world](runtime::ExecutionContext& ctx) {
                                         ctx.env().sleep(kSecond);
                                         confirm_now(world, ctx);
                                         write_effect(world, ctx, "payments", "write", "charge");
                                       })}};
      })
      .tree("tenant-1", "order-1", "order")
      .faults([](sim::World& world, sim::Rng&) {
        return sim::FaultPlan{{chosen_stop(
            world, {"instance-1", "instance-2"},
            {EventKind::kConfirmSent, EventKind::kRenewSent, EventKind::kWriteSent}, 1)}};
      })
      .marks({"renewal-raced-expiry", "takeover-mid-step"})
      .add_to(registry);
}

// The one line that makes this file's scenarios built in (scenarios/scenario.h).
const ScenarioRegistration kCatalogueExploreRegistration(register_catalogue_explore);

}  // namespace fencesim::scenarios
