// Faults aimed at the protocol's deadlines (sim::Aim) fire where the lease terms and the clocks put
// each deadline, and the expected instant is worked out here from the history alone (the events'
// true times and monotonic readings, the world's terms), never from the world's own aim records.
// An aim that quietly fires at its event, at a fixed delay or not at all fails one of these.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "runtime/execution_context.h"
#include "sim/tests/one_step_world.h"
#include "sim/world.h"

namespace fencesim::sim::fault_aim_test {
namespace {

using runtime::EventKind;
using runtime::kMillisecond;
using runtime::kSecond;

// The one-step world (one_step_world.h): its step sleeps 25 s, renewing its lease every 10 s
// meanwhile: takes at 0 s, renewals near 10 s and 20 s.
std::unique_ptr<World> run_aimed(std::vector<Fault> faults, std::uint64_t seed = 11) {
  return testing::run_one_step_world({.seed = seed, .safety_phase_ns = 60 * kSecond},
                                     std::move(faults))
      .world;
}

Fault aimed(FaultKind kind, std::string node, EventKind event, Aim aim, std::int64_t delay_ns,
            std::string at_node = {}) {
  Fault fault{kind, std::move(node)};
  fault.trigger = Trigger{event, 1, delay_ns, std::move(at_node)};
  fault.trigger->aim = aim;
  fault.duration_ns = kMillisecond;
  fault.amount = kSecond;  // a clock step's: it changes nothing the protocol reads
  return fault;
}

// The n-th (1-based) runtime event of `kind` in the history.
const HistoryEvent& nth(const World& world, EventKind kind, int n = 1) {
  for (const HistoryEvent& e : world.history().events()) {
    if (e.world == WorldEventKind::kRuntime && e.runtime.kind == kind && --n == 0) return e;
  }
  ADD_FAILURE() << "no " << runtime::to_string(kind) << " in the history";
  return world.history().events().front();
}

std::vector<const HistoryEvent*> of_kind(const World& world, WorldEventKind kind) {
  std::vector<const HistoryEvent*> out;
  for (const HistoryEvent& e : world.history().events()) {
    if (e.world == kind) out.push_back(&e);
  }
  return out;
}

// The first store call of `op` after `after` (true time).
const HistoryEvent* store_call_after(const World& world, StoreOp op, std::int64_t after) {
  for (const HistoryEvent& e : world.history().events()) {
    if (e.world == WorldEventKind::kStoreCall && e.store && e.store->op == op &&
        e.time_ns > after) {
      return &e;
    }
  }
  return nullptr;
}

TEST(FaultAim, AFaultAimedAtTheHoldersExpiryFiresThereByTheTermsAndTheHoldersClock) {
  const auto world = run_aimed({aimed(FaultKind::kStall, "instance-1", EventKind::kLeaseTaken,
                                      Aim::kHolderExpiry, -kSecond)});
  const LeaseTerms& terms = world->options().lease;
  const HistoryEvent& sent = nth(*world, EventKind::kTakeSent);
  // The holder believes its lease from the take's send for ttl less the drift margin, by its own
  // monotonic clock (no drift here: it runs at true time's rate).
  const std::int64_t expiry = sent.time_ns + terms.ttl_ns - terms.drift_margin_ns();
  const auto applied = of_kind(*world, WorldEventKind::kFaultApplied);
  ASSERT_EQ(applied.size(), 1u);
  EXPECT_EQ(applied[0]->time_ns, expiry - kSecond);
  ASSERT_EQ(world->fault_aims().size(), 1u);
  EXPECT_EQ(world->fault_aims()[0].deadline_ns, expiry);
  EXPECT_EQ(world->fault_aims()[0].effect, std::optional<std::size_t>(0));
  EXPECT_EQ(of_kind(*world, WorldEventKind::kFaultAimed).size(), 1u);
}

TEST(FaultAim, AtARenewalSentTheHoldersExpiryIsTheOneThatRenewalWouldGive) {
  const auto world = run_aimed({aimed(FaultKind::kClockStep, "instance-1", EventKind::kRenewSent,
                                      Aim::kHolderExpiry, -5 * kSecond)});
  const LeaseTerms& terms = world->options().lease;
  const HistoryEvent& sent = nth(*world, EventKind::kRenewSent);
  const auto applied = of_kind(*world, WorldEventKind::kFaultApplied);
  ASSERT_EQ(applied.size(), 1u);
  EXPECT_EQ(applied[0]->time_ns,
            sent.time_ns + terms.ttl_ns - terms.drift_margin_ns() - 5 * kSecond);
}

TEST(FaultAim, AStopUntilTheStoresExpiryEndsWhenTheStoresGrantRunsOut) {
  // Stopped 5 s after the take (before the first renewal), until the store's expiry of the grant.
  Fault fault = aimed(FaultKind::kStop, "instance-1", EventKind::kLeaseTaken, Aim::kHolderExpiry,
                      -25 * kSecond);
  fault.trigger->until = Aim::kStoreExpiry;
  fault.trigger->until_delay_ns = 7 * kMillisecond;
  const auto world = run_aimed({fault});
  const HistoryEvent& granted = nth(*world, EventKind::kStoreLeaseGranted);
  const std::int64_t store_expiry = granted.time_ns + world->options().lease.ttl_ns;
  const auto resumed = of_kind(*world, WorldEventKind::kNodeResumed);
  ASSERT_FALSE(resumed.empty());
  EXPECT_EQ(resumed[0]->time_ns, store_expiry + 7 * kMillisecond);
  ASSERT_EQ(world->fault_aims().size(), 1u);
  EXPECT_EQ(world->fault_aims()[0].until_deadline_ns, store_expiry);
  // The holder slept through its renewals: the store saw none before its expiry.
  const HistoryEvent* renewal = store_call_after(*world, StoreOp::kRenew, granted.time_ns);
  EXPECT_TRUE(renewal == nullptr || renewal->time_ns > store_expiry);
}

TEST(FaultAim, AFaultAimedInFlightLandsWhileTheRenewalIsOnTheWire) {
  Fault fault =
      aimed(FaultKind::kClockStep, "instance-1", EventKind::kRenewSent, Aim::kInFlight, 0);
  fault.trigger->within_permille = 500;
  const auto world = run_aimed({fault});
  const HistoryEvent& sent = nth(*world, EventKind::kRenewSent);
  const HistoryEvent* handled = store_call_after(*world, StoreOp::kRenew, sent.time_ns);
  ASSERT_NE(handled, nullptr);
  const auto applied = of_kind(*world, WorldEventKind::kFaultApplied);
  ASSERT_EQ(applied.size(), 1u);
  // Halfway from its departure (the send: nothing held it) to its arrival at the store.
  EXPECT_EQ(applied[0]->time_ns, sent.time_ns + (handled->time_ns - sent.time_ns) / 2);
  EXPECT_GT(applied[0]->time_ns, sent.time_ns);
  EXPECT_LT(applied[0]->time_ns, handled->time_ns);
}

TEST(FaultAim, AFaultAimedAtTheRpcTimeoutFiresWhenTheRequestsTimeoutElapses) {
  const auto world = run_aimed({aimed(FaultKind::kClockStep, "instance-1", EventKind::kRenewSent,
                                      Aim::kRpcTimeout, 3 * kMillisecond)});
  const HistoryEvent& sent = nth(*world, EventKind::kRenewSent);
  const auto applied = of_kind(*world, WorldEventKind::kFaultApplied);
  ASSERT_EQ(applied.size(), 1u);
  EXPECT_EQ(applied[0]->time_ns,
            sent.time_ns + world->options().network.rpc_timeout_ns + 3 * kMillisecond);
}

// A request held in a paused process leaves when the process resumes, and its timeout counts from
// then: a stall applied at the renewal's send holds it 2 s, so the aimed fault fires 2 s later
// than at an unheld renewal (red team 36a-06 counted the timeout from the send).
TEST(FaultAim, AnRpcTimeoutCountsFromWhenAHeldRequestLeaves) {
  Fault stall{FaultKind::kStall, "instance-1"};
  stall.trigger = Trigger{EventKind::kRenewSent, 1, 0, {}};
  stall.duration_ns = 2 * kSecond;
  const auto world =
      run_aimed({stall, aimed(FaultKind::kClockStep, "instance-1", EventKind::kRenewSent,
                              Aim::kRpcTimeout, 3 * kMillisecond)});
  const HistoryEvent& sent = nth(*world, EventKind::kRenewSent);
  const auto applied = of_kind(*world, WorldEventKind::kFaultApplied);
  ASSERT_EQ(applied.size(), 2u);
  EXPECT_EQ(applied[0]->time_ns, sent.time_ns);  // the stall, at the send
  EXPECT_EQ(applied[1]->time_ns, sent.time_ns + 2 * kSecond +
                                     world->options().network.rpc_timeout_ns + 3 * kMillisecond);
}

TEST(FaultAim, AFaultAimedAtADeadlineThatDoesNotExistIsRecordedAndNeverFires) {
  // At the store's grant there is no holder's expiry to aim at: the store holds no lease.
  const auto world = run_aimed({aimed(FaultKind::kStall, "lease-store",
                                      EventKind::kStoreLeaseGranted, Aim::kHolderExpiry, 0)});
  EXPECT_TRUE(of_kind(*world, WorldEventKind::kFaultApplied).empty());
  const auto aimed_events = of_kind(*world, WorldEventKind::kFaultAimed);
  ASSERT_EQ(aimed_events.size(), 1u);
  EXPECT_NE(std::string(aimed_events[0]->detail).find("not fired"), std::string::npos);
  ASSERT_EQ(world->fault_aims().size(), 1u);
  EXPECT_EQ(world->fault_aims()[0].deadline_ns, -1);
  EXPECT_FALSE(world->fault_aims()[0].effect.has_value());
}

TEST(FaultAim, AnAimedFaultIsRecordedAsThePlanWroteItAndTheRunIsDeterministic) {
  Fault fault = aimed(FaultKind::kStop, "instance-1", EventKind::kLeaseRenewed, Aim::kHolderExpiry,
                      -200 * kMillisecond);
  fault.trigger->until = Aim::kStoreExpiry;
  fault.trigger->until_delay_ns = kSecond;
  // One live world per thread: the first is done with before the second is built.
  std::uint64_t first_hash = 0;
  {
    const auto first = run_aimed({fault}, 5);
    first_hash = first->history().hash();
  }
  const auto second = run_aimed({fault}, 5);
  EXPECT_EQ(first_hash, second->history().hash());
  const auto applied = of_kind(*second, WorldEventKind::kFaultApplied);
  ASSERT_EQ(applied.size(), 1u);
  // The plan's words, not the length the world worked out: reports find the plan's fault by them.
  EXPECT_EQ(std::string(applied[0]->detail), describe(fault));
  EXPECT_NE(describe(fault).find("aimed at holder-expiry - 200 ms"), std::string::npos);
  EXPECT_NE(describe(fault).find("until store-expiry + 1000 ms"), std::string::npos);
}

// A crash loses what the process believed: a fault aimed at the holder's expiry from the moment
// the holder crashed (the plan's crash goes first at the same event) finds no lease to aim at, and
// never fires at the dead process's expiry. The same aim without the crash fires there (so the
// world can see the lease at that event). An aim that kept the dead process's beliefs would place
// faults on the restarted incarnation at a deadline nobody holds.
TEST(FaultAim, AfterACrashTheHolderHasNoExpiryToAimAt) {
  const Fault at_expiry = aimed(FaultKind::kClockStep, "instance-1", EventKind::kStepStarted,
                                Aim::kHolderExpiry, -kSecond);
  {
    const auto alive = run_aimed({at_expiry});
    ASSERT_EQ(alive->fault_aims().size(), 1u);
    EXPECT_GT(alive->fault_aims()[0].deadline_ns, 0) << "the live holder's expiry";
    EXPECT_TRUE(alive->fault_aims()[0].effect.has_value());
  }
  Fault crash{FaultKind::kCrash, "instance-1"};
  crash.trigger = Trigger{EventKind::kStepStarted, 1, 0, {}};
  crash.duration_ns = 2 * kSecond;
  const auto world = run_aimed({crash, at_expiry});
  EXPECT_EQ(of_kind(*world, WorldEventKind::kNodeCrashed).size(), 1u);
  ASSERT_EQ(world->fault_aims().size(), 1u);
  EXPECT_EQ(world->fault_aims()[0].deadline_ns, -1);
  EXPECT_FALSE(world->fault_aims()[0].effect.has_value())
      << "fired at the crashed process's expiry: " << world->fault_aims()[0].fault;
  EXPECT_NE(world->fault_aims()[0].missed.find("holds no lease"), std::string::npos)
      << world->fault_aims()[0].missed;
  EXPECT_EQ(of_kind(*world, WorldEventKind::kFaultApplied).size(), 1u) << "the crash alone";
}

// An aim is worked out for the process running when its event came: if that process dies before
// the fault fires, the deadline died with it, and the fault does not fire at its successor (a
// restarted holder with a lease and an expiry of its own). The aim says why it did not fire.
TEST(FaultAim, AnAimedFaultDoesNotFireAtTheProcessThatReplacedTheOneItWasAimedAt) {
  const Fault at_expiry = aimed(FaultKind::kClockStep, "instance-1", EventKind::kStepStarted,
                                Aim::kHolderExpiry, -kSecond);
  Fault crash{FaultKind::kCrash, "instance-1"};
  crash.at_ns = 5 * kSecond;
  crash.duration_ns = 2 * kSecond;
  const auto world = run_aimed({crash, at_expiry});
  EXPECT_EQ(of_kind(*world, WorldEventKind::kNodeRestarted).size(), 1u);
  ASSERT_EQ(world->fault_aims().size(), 1u);
  const FaultAim& aim = world->fault_aims()[0];
  EXPECT_GT(aim.deadline_ns, 5 * kSecond) << "aimed before the crash, at the first holder's expiry";
  EXPECT_FALSE(aim.effect.has_value()) << "fired at the restarted process: " << aim.fault;
  EXPECT_NE(aim.missed.find("ended"), std::string::npos) << aim.missed;
  EXPECT_EQ(of_kind(*world, WorldEventKind::kFaultApplied).size(), 1u) << "the crash alone";
}

// After a re-take the store refused, the holder believes no lease of the key: the take it sent
// ended its belief in the lease it held before (it took again because that one was lost), and the
// refusal gave it none. An aim at the holder's expiry then finds nothing to aim at; a world that
// kept the old belief would fire at a deadline long past, at a holder that holds nothing.
TEST(FaultAim, AfterARefusedReTakeTheHolderHasNoExpiryToAimAt) {
  WorldOptions options;
  options.seed = 11;
  options.safety_phase_ns = 90 * kSecond;
  options.liveness_budget_ns = 200 * kSecond;
  World world(options);
  world.add_lease_store();
  world.add_instance("instance-1");
  world.add_instance("instance-2");
  world.workflows().add(runtime::Workflow{
      "order", {runtime::StepItem{"wait", [](runtime::ExecutionContext& ctx) {
                                    for (int i = 0; i < 40; ++i) {
                                      ctx.signal().throw_if_aborted();
                                      ctx.env().sleep(kSecond);
                                    }
                                  }}}});
  world.submit(runtime::LeaseKey{"tenant-1", "order-1"}, "order");
  // The first holder stops 2 s after its lease was granted, for longer than the lease: the other
  // instance takes the tree over, and the first, resumed, is refused when it takes again.
  Fault stop{FaultKind::kStop, "instance-1"};
  stop.trigger = Trigger{EventKind::kLeaseTaken, 1, 2 * kSecond, {}};
  stop.duration_ns = 45 * kSecond;
  Fault step = aimed(FaultKind::kClockStep, "instance-1", EventKind::kTakeRefused,
                     Aim::kHolderExpiry, 0, "instance-1");
  world.set_fault_plan(FaultPlan{{stop, step}});
  world.run();
  ASSERT_EQ(world.fault_aims().size(), 1u);
  const FaultAim& aim = world.fault_aims()[0];
  EXPECT_EQ(aim.deadline_ns, -1) << "aimed at the lost lease's expiry";
  EXPECT_FALSE(aim.effect.has_value()) << aim.fault;
  EXPECT_NE(aim.missed.find("holds no lease"), std::string::npos) << aim.missed;
  EXPECT_EQ(of_kind(world, WorldEventKind::kFaultApplied).size(), 1u) << "the stop alone";
  // The story happened: the first holder lost its lease and was refused when it took again.
  EXPECT_EQ(nth(world, EventKind::kLeaseLost).node, 2u);
  int refused_first_holder = 0;
  for (const HistoryEvent& e : world.history().events()) {
    if (e.world == WorldEventKind::kRuntime && e.runtime.kind == EventKind::kTakeRefused &&
        e.node == 2 && e.time_ns > nth(world, EventKind::kLeaseLost).time_ns) {
      ++refused_first_holder;
    }
  }
  EXPECT_GE(refused_first_holder, 1);
}

// The store's expiry is by the store's own clock: on a store whose clock runs 10% fast, a grant
// runs out when that clock has moved a ttl on, about 27.3 s of true time, not 30 s.
TEST(FaultAim, TheStoresExpiryIsWhenTheStoresOwnClockHasMovedATtlOn) {
  Fault drift{FaultKind::kClockDrift, "lease-store"};
  drift.amount = 100'000;  // ppm
  const auto world = run_aimed({drift, aimed(FaultKind::kClockStep, "instance-1",
                                             EventKind::kLeaseTaken, Aim::kStoreExpiry, 0)});
  const HistoryEvent& granted = nth(*world, EventKind::kStoreLeaseGranted);
  ASSERT_EQ(world->fault_aims().size(), 1u);
  const double ttl = static_cast<double>(world->options().lease.ttl_ns);
  EXPECT_NEAR(static_cast<double>(world->fault_aims()[0].deadline_ns),
              static_cast<double>(granted.time_ns) + ttl / 1.1, 2.0);
}

// A renewal moves the store's expiry: a fault aimed at it after the first renewal (near 10 s) aims
// a ttl on from that renewal, not from the grant (red team 45a-06: only grants moved it, and a
// fault aimed at the store's expiry fired 10 s early, while the lease was still renewed).
TEST(FaultAim, ARenewalMovesTheStoresExpiryItAimsAt) {
  const auto world =
      run_aimed({aimed(FaultKind::kClockStep, "instance-1", EventKind::kStoreLeaseRenewed,
                       Aim::kStoreExpiry, 0, "lease-store")});
  const HistoryEvent& renewed = nth(*world, EventKind::kStoreLeaseRenewed);
  ASSERT_EQ(world->fault_aims().size(), 1u);
  const double ttl = static_cast<double>(world->options().lease.ttl_ns);
  EXPECT_NEAR(static_cast<double>(world->fault_aims()[0].deadline_ns),
              static_cast<double>(renewed.time_ns) + ttl, 2.0);
}

// A released lease has no expiry at the store left to aim at: the release ends the grant.
TEST(FaultAim, AfterTheReleaseTheStoreHoldsNoExpiryToAimAt) {
  const auto world =
      run_aimed({aimed(FaultKind::kClockStep, "instance-1", EventKind::kStoreLeaseReleased,
                       Aim::kStoreExpiry, 0, "lease-store")});
  ASSERT_EQ(of_kind(*world, WorldEventKind::kFaultAimed).size(), 1u) << "the lease is released";
  ASSERT_EQ(world->fault_aims().size(), 1u);
  EXPECT_EQ(world->fault_aims()[0].deadline_ns, -1);
  EXPECT_NE(world->fault_aims()[0].missed.find("the store holds no lease"), std::string::npos)
      << world->fault_aims()[0].missed;
  EXPECT_TRUE(of_kind(*world, WorldEventKind::kFaultApplied).empty());
}

// A fault aimed at the wire while the next message flies has nothing to aim at when that message
// is lost: it is recorded as missed and never fires.
TEST(FaultAim, AFaultAimedInFlightAtALostMessageNeverFires) {
  Fault drop{FaultKind::kNetworkDrop, "instance-1"};
  drop.at_ns = 9 * kSecond;  // the first renewal leaves near 10 s
  drop.duration_ns = 2 * kSecond;
  drop.probability = 1.0;
  Fault in_flight =
      aimed(FaultKind::kClockStep, "instance-1", EventKind::kRenewSent, Aim::kInFlight, 0);
  in_flight.trigger->within_permille = 500;
  const auto world = run_aimed({drop, in_flight});
  ASSERT_EQ(world->fault_aims().size(), 1u);
  EXPECT_EQ(world->fault_aims()[0].deadline_ns, -1);
  EXPECT_NE(world->fault_aims()[0].missed.find("lost on the way"), std::string::npos)
      << world->fault_aims()[0].missed;
  EXPECT_EQ(of_kind(*world, WorldEventKind::kFaultApplied).size(), 1u) << "the drop alone";
}

TEST(FaultAim, EachDeadlineIsNamedAndReadBack) {
  for (const Aim aim :
       {Aim::kEvent, Aim::kHolderExpiry, Aim::kStoreExpiry, Aim::kRpcTimeout, Aim::kInFlight}) {
    const std::string_view name = to_string(aim);
    EXPECT_NE(name, "unknown");
    EXPECT_EQ(aim_from_string(name), std::optional<Aim>(aim)) << name;
  }
  EXPECT_EQ(to_string(Aim::kHolderExpiry), "holder-expiry");
  EXPECT_EQ(to_string(Aim::kInFlight), "in-flight");
  EXPECT_EQ(aim_from_string("holder-expiri"), std::nullopt);
  EXPECT_TRUE(at_departure(Aim::kRpcTimeout));
  EXPECT_TRUE(at_departure(Aim::kInFlight));
  EXPECT_FALSE(at_departure(Aim::kHolderExpiry));
  EXPECT_FALSE(at_departure(Aim::kStoreExpiry));
}

}  // namespace
}  // namespace fencesim::sim::fault_aim_test
