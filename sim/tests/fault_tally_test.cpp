// The run's fault tally tells a fault that could act from one that acted (sim/fault_ledger.h): a
// sweep fails a fault kind that had chances and never acted (reports/claims.h), so a ledger that
// counted every chance as an effect would keep that claim met while the fault did nothing. Every
// other test of the ledger runs faults that do act; these run a fault that had its chances and
// cannot act, and a ledger fed chances alone.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/execution_context.h"
#include "sim/fault_ledger.h"
#include "sim/tests/one_step_world.h"
#include "sim/world.h"

namespace fencesim::sim::fault_tally_test {
namespace {

using runtime::kSecond;

const std::vector<std::string> kNames = {"world", "lease-store", "instance-1"};

// The one-step world (one_step_world.h), its step waking every second for 25 s, and one delay
// window of `extra_ns` on the instance from 5 s to 15 s.
FaultEffect delay_window(std::int64_t extra_ns) {
  Fault fault{FaultKind::kNetworkDelay, "instance-1"};
  fault.at_ns = 5 * kSecond;
  fault.duration_ns = 10 * kSecond;
  fault.amount = extra_ns;
  const auto world = testing::run_one_step_world({}, {fault}).world;
  EXPECT_EQ(world->fault_effects().size(), 1u);
  return world->fault_effects().empty() ? FaultEffect{} : world->fault_effects().front();
}

// A delay window that adds nothing to any latency: the instance renewed through it (its chances),
// and not one message was late. Its tally says it could act and did not.
TEST(FaultTally, ADelayWindowThatAddsNothingCouldActAndDidNot) {
  const FaultEffect effect = delay_window(0);
  EXPECT_GE(effect.chances, 1u) << effect.describe(kNames);
  EXPECT_TRUE(effect.could_act()) << effect.describe(kNames);
  EXPECT_EQ(effect.messages_delayed, 0u) << effect.describe(kNames);
  EXPECT_FALSE(effect.acted()) << effect.describe(kNames);
  EXPECT_NE(effect.describe(kNames).find(": no effect (chances "), std::string::npos)
      << effect.describe(kNames);
}

// The same window with some extra latency acts on the very messages it had as chances.
TEST(FaultTally, TheSameWindowWithExtraLatencyActs) {
  const FaultEffect effect = delay_window(kSecond / 2);
  EXPECT_TRUE(effect.could_act()) << effect.describe(kNames);
  EXPECT_TRUE(effect.acted()) << effect.describe(kNames);
  EXPECT_GE(effect.messages_delayed, 1u);
}

// Windows open on one node all act (Network::trouble): latencies add, drop chances combine. A
// window that adds nothing, opened over one that delays every message, delayed none of them; one
// that drops nothing, over one that drops every message, dropped none. Credited with the other
// window's work, a fault that does nothing would read as acted, and its kind's claim would be met
// by another fault's effect.
TEST(FaultTally, AWindowThatAddsNothingIsNotCreditedWithAnOverlappingWindowsWork) {
  Fault nothing{FaultKind::kNetworkDelay, "instance-1"};
  nothing.at_ns = 5 * kSecond;
  nothing.duration_ns = 10 * kSecond;
  Fault real = nothing;
  real.amount = kSecond / 2;
  Fault no_drop{FaultKind::kNetworkDrop, "lease-store"};
  no_drop.at_ns = 17 * kSecond;  // after the delays: a message dropped is never delayed
  no_drop.duration_ns = 6 * kSecond;
  no_drop.probability = 0;
  Fault all_drop = no_drop;
  all_drop.probability = 1;
  const auto world = testing::run_one_step_world({}, {nothing, real, no_drop, all_drop}).world;
  ASSERT_EQ(world->fault_effects().size(), 4u);
  // Faults due at one instant open in the scheduler's order, not the plan's: found by what they are.
  const auto find = [&](FaultKind kind, bool real_one) -> const FaultEffect& {
    for (const FaultEffect& e : world->fault_effects()) {
      const bool is_real = kind == FaultKind::kNetworkDrop ? e.probability > 0 : e.extra_latency_ns > 0;
      if (e.kind == kind && is_real == real_one) return e;
    }
    ADD_FAILURE() << "no such window";
    return world->fault_effects().front();
  };
  const FaultEffect& zero_delay = find(FaultKind::kNetworkDelay, false);
  const FaultEffect& half_second = find(FaultKind::kNetworkDelay, true);
  const FaultEffect& zero_drop = find(FaultKind::kNetworkDrop, false);
  const FaultEffect& every_drop = find(FaultKind::kNetworkDrop, true);
  EXPECT_GE(half_second.messages_delayed, 1u) << half_second.describe(kNames);
  EXPECT_EQ(zero_delay.messages_delayed, 0u) << zero_delay.describe(kNames);
  EXPECT_FALSE(zero_delay.acted()) << zero_delay.describe(kNames);
  EXPECT_GE(every_drop.messages_dropped, 1u) << every_drop.describe(kNames);
  EXPECT_EQ(zero_drop.messages_dropped, 0u) << zero_drop.describe(kNames);
  EXPECT_FALSE(zero_drop.acted()) << zero_drop.describe(kNames);
}

// A message the network duplicates is one send: the second copy's own latency is drawn, but
// the delay window had one chance at that send and delayed it once. Counted per copy, a window
// over a duplicating link would report more messages delayed than it ever saw, and its share of
// the run's sends would read higher than it was.
TEST(FaultTally, ADuplicatedMessageIsDelayedOnceForItsOneChance) {
  Fault delay{FaultKind::kNetworkDelay, "instance-1"};
  delay.at_ns = 5 * kSecond;
  delay.duration_ns = 10 * kSecond;
  delay.amount = kSecond / 2;
  Fault duplicate{FaultKind::kNetworkDuplicate, "instance-1"};
  duplicate.at_ns = 5 * kSecond;
  duplicate.duration_ns = 10 * kSecond;
  duplicate.probability = 1.0;
  const auto world = testing::run_one_step_world({}, {delay, duplicate}).world;
  ASSERT_EQ(world->fault_effects().size(), 2u);
  const FaultEffect& delayed = world->fault_effects().at(0);
  const FaultEffect& duplicated = world->fault_effects().at(1);
  ASSERT_EQ(delayed.kind, FaultKind::kNetworkDelay);
  ASSERT_EQ(duplicated.kind, FaultKind::kNetworkDuplicate);
  EXPECT_GE(duplicated.messages_duplicated, 1u) << duplicated.describe(kNames);
  // Every send to or from the instance in the window is a chance, and each is late.
  EXPECT_GE(delayed.chances, 2u) << delayed.describe(kNames);
  EXPECT_EQ(delayed.messages_delayed, delayed.chances) << delayed.describe(kNames);
}

// Windows open on one node at once all act: a delay that opens inside the store's down window
// does not bring the store back for its length. (When the newest window alone decided, the store
// answered the renewal near 10 s, late, while it was meant to be unreachable.)
TEST(FaultTally, AWindowOpenedInsideADownWindowKeepsTheStoreDown) {
  Fault down{FaultKind::kStoreDown, "lease-store"};
  down.at_ns = 5 * kSecond;
  down.duration_ns = 10 * kSecond;
  Fault delay{FaultKind::kNetworkDelay, "lease-store"};
  delay.at_ns = 6 * kSecond;
  delay.duration_ns = 8 * kSecond;
  delay.amount = kSecond / 10;
  const auto world = testing::run_one_step_world({}, {down, delay}).world;
  ASSERT_EQ(world->fault_effects().size(), 2u);
  const FaultEffect& unreachable = world->fault_effects().at(0);
  ASSERT_EQ(unreachable.kind, FaultKind::kStoreDown);
  EXPECT_GE(unreachable.messages_dropped, 1u) << unreachable.describe(kNames);
  // Nothing reached the store, so nothing was late on the way there either.
  EXPECT_EQ(world->fault_effects().at(1).messages_delayed, 0u)
      << world->fault_effects().at(1).describe(kNames);
}

// The ledger itself: chances are counted where the world sees them, effects where the fault acts,
// and nothing turns the one into the other. Each of the ledger's chance hooks, fed alone to a fault
// it matches, leaves that fault able to act and not acted.
TEST(FaultTally, ChancesAloneAreNoEffect) {
  struct Case {
    Fault fault;
    std::function<void(FaultLedger&)> chance;
  };
  constexpr NodeId kStore = 1;
  constexpr NodeId kInstance = 2;
  Fault partition{FaultKind::kPartition, "instance-1"};
  partition.peer = "lease-store";
  Fault drop{FaultKind::kNetworkDrop, "instance-1"};
  drop.probability = 1.0;
  Fault duplicate{FaultKind::kNetworkDuplicate, "instance-1"};
  duplicate.probability = 1.0;
  const std::vector<Case> cases = {
      {Fault{FaultKind::kNetworkDelay, "instance-1"},
       [](FaultLedger& l) { l.message_sent(kInstance, kStore, 1); }},
      {Fault{FaultKind::kStoreSlow, "instance-1"},
       [](FaultLedger& l) { l.message_sent(kStore, kInstance, 1); }},
      {drop, [](FaultLedger& l) { l.message_sent(kInstance, kStore, 1); }},
      {Fault{FaultKind::kStoreDown, "instance-1"},
       [](FaultLedger& l) { l.message_sent(kStore, kInstance, 1); }},
      {duplicate, [](FaultLedger& l) { l.message_sent(kStore, kInstance, 1); }},
      {partition, [](FaultLedger& l) { l.message_arriving(kStore, kInstance, 1); }},
      {Fault{FaultKind::kCrash, "instance-1"},
       [](FaultLedger& l) { l.message_arriving(kStore, kInstance, 1); }},
      {Fault{FaultKind::kStall, "instance-1"},
       [](FaultLedger& l) { l.fiber_readied(kInstance, false, 1); }},
      {Fault{FaultKind::kStop, "instance-1"},
       [](FaultLedger& l) { l.message_arriving(kStore, kInstance, 1); }},
      {Fault{FaultKind::kMigrate, "instance-1"},
       [](FaultLedger& l) { l.message_sent(kInstance, kStore, 1); }},
      // Every pause kind's wake-up that was not held is a chance, not a missed wake-up (red
      // team 45a-05: a migration counted every wake-up as missed, held or not).
      {Fault{FaultKind::kStop, "instance-1"},
       [](FaultLedger& l) { l.fiber_readied(kInstance, false, 1); }},
      {Fault{FaultKind::kMigrate, "instance-1"},
       [](FaultLedger& l) { l.fiber_readied(kInstance, false, 1); }},
  };
  for (const Case& c : cases) {
    FaultLedger ledger;
    const std::size_t index = ledger.open(c.fault, kInstance, kStore, 0);
    for (int i = 0; i < 6; ++i) c.chance(ledger);
    ledger.close(index);
    const FaultEffect& effect = ledger.effects().at(index);
    EXPECT_EQ(effect.chances, 6u) << to_string(c.fault.kind);
    EXPECT_TRUE(effect.could_act()) << effect.describe(kNames);
    EXPECT_FALSE(effect.acted()) << effect.describe(kNames);
  }
}

// A partition cuts its link both ways, and its ledger credits it with every cut message,
// whichever way it went: the instance's requests to the store and the store's replies to it.
TEST(FaultTally, APartitionIsCreditedWithCutsEitherWay) {
  constexpr NodeId kStore = 1;
  constexpr NodeId kInstance = 2;
  Fault partition{FaultKind::kPartition, "instance-1"};
  partition.peer = "lease-store";
  for (const bool reply : {false, true}) {
    FaultLedger ledger;
    const std::size_t index = ledger.open(partition, kInstance, kStore, 0);
    for (int i = 0; i < 3; ++i) {
      if (reply) {
        ledger.message_cut(kStore, kInstance, 1);
      } else {
        ledger.message_cut(kInstance, kStore, 1);
      }
    }
    EXPECT_EQ(ledger.effects().at(index).messages_cut, 3u)
        << (reply ? "replies to the instance" : "requests to the store");
  }
}

// A fault's window counts from its start up to, not at, its planned end (where the network's
// own windows stop acting): a hook at the end's nanosecond is no chance and no act of it.
TEST(FaultTally, AWindowCountsNothingAtItsEnd) {
  constexpr NodeId kStore = 1;
  constexpr NodeId kInstance = 2;
  Fault drop{FaultKind::kNetworkDrop, "instance-1"};
  drop.probability = 1.0;
  drop.duration_ns = 10;
  const auto at = [&](std::int64_t now) {
    FaultLedger ledger;
    const std::size_t index = ledger.open(drop, kInstance, kStore, 0);
    ledger.message_sent(kInstance, kStore, now);
    ledger.message_dropped(kInstance, now);
    return ledger.effects().at(index);
  };
  EXPECT_EQ(at(9).chances, 1u);
  EXPECT_EQ(at(9).messages_dropped, 1u);
  EXPECT_EQ(at(10).chances, 0u) << "at its end";
  EXPECT_EQ(at(10).messages_dropped, 0u) << "at its end";
}

// When a fault counts as able to act: at its first chance for a fault that acts on each (a
// partition, a pause, a delay), and only at five expected acts for a window that acts on a share of
// messages. A tally that asked five chances of every fault would leave the short ones (a pause
// that held one wake-up, a partition that cut one renewal) out of the claims, and a fault kind
// that stopped acting on them would be judged on fewer runs, or on none.
TEST(FaultTally, OneChanceIsEnoughUnlessTheFaultActsOnAShare) {
  constexpr NodeId kStore = 1;
  constexpr NodeId kInstance = 2;
  const auto with_chances = [&](const Fault& fault, int chances) {
    FaultLedger ledger;
    const std::size_t index = ledger.open(fault, kInstance, kStore, 0);
    for (int i = 0; i < chances; ++i) ledger.message_sent(kInstance, kStore, 1);
    return ledger.effects().at(index);
  };
  for (const FaultKind kind : {FaultKind::kNetworkDelay, FaultKind::kNetworkDrop,
                               FaultKind::kStall, FaultKind::kMigrate}) {
    Fault fault{kind, "instance-1"};
    fault.probability = 1.0;
    EXPECT_FALSE(with_chances(fault, 0).could_act()) << to_string(kind);
    EXPECT_TRUE(with_chances(fault, 1).could_act()) << to_string(kind) << ": one chance";
  }
  Fault drop{FaultKind::kNetworkDrop, "instance-1"};
  drop.probability = 0.5;
  EXPECT_FALSE(with_chances(drop, 9).could_act()) << "4.5 drops expected";
  EXPECT_TRUE(with_chances(drop, 10).could_act()) << "5 drops expected";
}

// And each effect the ledger counts, alone, is an act: a fault is never judged by one counter.
TEST(FaultTally, EachEffectAloneIsAnAct) {
  using Counter = std::uint64_t FaultEffect::*;
  for (const Counter counter :
       {&FaultEffect::messages_held, &FaultEffect::messages_dropped,
        &FaultEffect::messages_duplicated, &FaultEffect::messages_delayed,
        &FaultEffect::messages_cut, &FaultEffect::messages_refused, &FaultEffect::wakeups_missed,
        &FaultEffect::processes_ended}) {
    FaultEffect effect;
    effect.node = 2;
    effect.peer = 1;
    effect.chances = 1;
    EXPECT_FALSE(effect.acted()) << effect.describe(kNames);
    effect.*counter = 1;
    EXPECT_TRUE(effect.acted()) << effect.describe(kNames);
  }
  for (const std::int64_t moved : {std::int64_t{-1}, std::int64_t{1}}) {
    FaultEffect effect;
    effect.kind = FaultKind::kClockStep;
    effect.chances = 1;
    effect.clock_moved_ns = moved;
    EXPECT_TRUE(effect.acted()) << effect.describe(kNames);
  }
}

}  // namespace
}  // namespace fencesim::sim::fault_tally_test
