// The quiet phase (World::heal): at the safety phase's end every fault still on ends, and no fault
// fires after it, whatever its plan says. Liveness is judged there: a partition left standing or a
// stall fired in the quiet phase makes a tree late, and a quiet phase long enough for it (every
// scenario's) hides that, so no sweep notices a heal that heals less.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "runtime/execution_context.h"
#include "sim/tests/one_step_world.h"
#include "sim/world.h"

namespace fencesim::sim::world_heal_test {
namespace {

using runtime::kSecond;
using testing::times_of;

constexpr std::int64_t kSafetyNs = 40 * kSecond;

// The one-step world (one_step_world.h), its step waking every second for 60 s (renewing near 10,
// 20, 30, 40 and 50 s): it runs on well into the quiet phase.
std::unique_ptr<World> run_healed(std::vector<Fault> faults) {
  return testing::run_one_step_world({.safety_phase_ns = kSafetyNs, .step_seconds = 60},
                                     std::move(faults))
      .world;
}

// A partition planned to outlast the safety phase by a minute ends at the heal: its ledger entry
// is closed there, and the instance's requests reach the store again within a renewal or two.
TEST(WorldHeal, AFaultStillOnEndsAtTheHeal) {
  Fault partition{FaultKind::kPartition, "instance-1"};
  partition.peer = "lease-store";
  partition.at_ns = 5 * kSecond;
  partition.duration_ns = kSafetyNs + 60 * kSecond;
  const auto world = run_healed({partition});
  EXPECT_EQ(times_of(*world, WorldEventKind::kFaultEnded), std::vector<std::int64_t>{kSafetyNs});
  ASSERT_EQ(world->fault_effects().size(), 1u);
  EXPECT_TRUE(world->fault_effects()[0].ended);
  EXPECT_GE(world->fault_effects()[0].messages_cut, 1u);
  std::int64_t first_after = -1;
  for (const HistoryEvent& e : world->history().events()) {
    if (e.world == WorldEventKind::kStoreCall && e.store && e.time_ns >= kSafetyNs) {
      first_after = e.time_ns;
      break;
    }
  }
  ASSERT_GE(first_after, 0) << "no request reached the store in the quiet phase";
  EXPECT_LT(first_after, kSafetyNs + 25 * kSecond)
      << "the partition went on past the heal (first request at " << first_after << " ns)";
}

// A pause planned past the safety phase's end is let go at the heal.
TEST(WorldHeal, APauseStillOnIsLetGoAtTheHeal) {
  Fault stop{FaultKind::kStop, "instance-1"};
  stop.at_ns = 30 * kSecond;
  stop.duration_ns = 60 * kSecond;
  const auto world = run_healed({stop});
  EXPECT_EQ(times_of(*world, WorldEventKind::kNodeResumed), std::vector<std::int64_t>{kSafetyNs});
}

// And what the let-go node sends from then on leaves at once: the heal ends the network's hold
// on its sends too, not only the scheduler's pause. Held to the stop's planned end (90 s), the
// renewal near 50 s would wait on the instance for 40 s.
TEST(WorldHeal, WhatAPauseLetGoAtTheHealSendsLeavesAtOnce) {
  Fault stop{FaultKind::kStop, "instance-1"};
  stop.at_ns = 30 * kSecond;
  stop.duration_ns = 60 * kSecond;
  const auto world = run_healed({stop});
  int after_heal = 0;
  for (const HistoryEvent& e : world->history().events()) {
    if (e.world != WorldEventKind::kStoreCall || !e.store || e.store->sent_ns < kSafetyNs) continue;
    ++after_heal;
    EXPECT_LT(e.time_ns - e.store->sent_ns, kSecond)
        << "sent at " << e.store->sent_ns << " ns, handled at " << e.time_ns << " ns";
  }
  EXPECT_GT(after_heal, 0) << "the instance renews in the quiet phase";
}

// Nothing fires in the quiet phase: a fault at a time past the safety phase, one triggered by the
// fifth renewal (near 50 s), and one aimed 30 s past the holder's expiry of its first lease (the
// aim is placed at the take, inside the safety phase; it would fire near a minute) are never
// applied.
TEST(WorldHeal, NoFaultFiresInTheQuietPhase) {
  Fault late{FaultKind::kStall, "instance-1"};
  late.at_ns = kSafetyNs + 5 * kSecond;
  late.duration_ns = 30 * kSecond;
  Fault triggered{FaultKind::kStop, "instance-1"};
  triggered.trigger = Trigger{runtime::EventKind::kRenewSent, 5, 0, {}};
  triggered.duration_ns = 30 * kSecond;
  Fault aimed{FaultKind::kStall, "instance-1"};
  aimed.trigger = Trigger{runtime::EventKind::kLeaseTaken, 1, 30 * kSecond, {}};
  aimed.trigger->aim = Aim::kHolderExpiry;
  aimed.duration_ns = 30 * kSecond;
  const auto world = run_healed({late, triggered, aimed});
  ASSERT_EQ(world->fault_aims().size(), 1u);
  EXPECT_GT(world->fault_aims()[0].fires_ns, kSafetyNs) << "aimed past the safety phase";
  std::vector<std::int64_t> renewals;
  for (const HistoryEvent& e : world->history().events()) {
    if (e.world == WorldEventKind::kRuntime && e.runtime.kind == runtime::EventKind::kRenewSent) {
      renewals.push_back(e.time_ns);
    }
  }
  ASSERT_GE(renewals.size(), 5u);
  ASSERT_GE(renewals[4], kSafetyNs) << "the fifth renewal is in the quiet phase";
  EXPECT_EQ(times_of(*world, WorldEventKind::kFaultApplied), std::vector<std::int64_t>{});
  EXPECT_EQ(times_of(*world, WorldEventKind::kNodePaused), std::vector<std::int64_t>{});
  EXPECT_TRUE(world->fault_effects().empty());
}

}  // namespace
}  // namespace fencesim::sim::world_heal_test
