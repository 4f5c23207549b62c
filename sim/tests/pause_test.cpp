// How long a pause (stall, stop, migrate) holds its node, where the plan is unusual: a pause of
// length 0 (a spec's `lasting = "0s"`, or an `until` deadline already past when the fault fires)
// takes the node and gives it back at once, and pauses that overlap hold the node until the last
// of them ends. A pause is the process not running for its `lasting` (docs/specs.md); a second
// pause inside the first (a GC stall during a SIGSTOP) leaves it not running for the first's whole
// length, and the network already holds what the node sends until the latest end
// (Network::hold_sends). A node let go at the first end would run while its sends still wait, and
// the longer pause's ledger would count the wake-ups it no longer held as chances it missed.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "runtime/execution_context.h"
#include "sim/tests/one_step_world.h"
#include "sim/world.h"

namespace fencesim::sim::pause_test {
namespace {

using runtime::kSecond;
using testing::times_of;

// The one-step world (one_step_world.h), its step waking every second for 25 s, under `faults`.
std::unique_ptr<World> run_paused(std::vector<Fault> faults) {
  return testing::run_one_step_world({}, std::move(faults)).world;
}

Fault pause(FaultKind kind, std::int64_t at_ns, std::int64_t duration_ns) {
  Fault fault{kind, "instance-1"};
  fault.at_ns = at_ns;
  fault.duration_ns = duration_ns;
  return fault;
}

// The true times of the step's wake-ups: the instance's runtime events and its store calls both
// need it running; here, the times the lease store handled a request the instance sent.
std::vector<std::int64_t> requests_sent(const World& world) {
  std::vector<std::int64_t> sent;
  for (const HistoryEvent& e : world.history().events()) {
    if (e.world == WorldEventKind::kStoreCall && e.store) sent.push_back(e.store->sent_ns);
  }
  return sent;
}

TEST(Pause, APauseOfLengthZeroGivesTheNodeBackAtOnce) {
  for (const FaultKind kind : {FaultKind::kStall, FaultKind::kStop, FaultKind::kMigrate}) {
    const auto world = run_paused({pause(kind, 5 * kSecond, 0)});
    EXPECT_EQ(times_of(*world, WorldEventKind::kNodePaused), std::vector<std::int64_t>{5 * kSecond})
        << to_string(kind);
    EXPECT_EQ(times_of(*world, WorldEventKind::kNodeResumed),
              std::vector<std::int64_t>{5 * kSecond})
        << to_string(kind) << ": resumed at once, not at the heal";
    ASSERT_EQ(world->fault_effects().size(), 1u);
    EXPECT_TRUE(world->fault_effects()[0].ended);
    // The holder renews on: the store hears from it between 5 s and the safety phase's end.
    std::size_t after = 0;
    for (const std::int64_t sent : requests_sent(*world)) {
      if (sent > 5 * kSecond && sent < 40 * kSecond) ++after;
    }
    EXPECT_GE(after, 2u) << to_string(kind) << ": the holder stopped renewing after the pause";
  }
}

// Two pauses of the node, the second inside the first or outlasting it: the node resumes once, at
// the last end, and every wake-up of its fibers in either window was held.
void expect_paused_until(const std::vector<Fault>& faults, std::int64_t last_end_ns) {
  const auto world = run_paused(faults);
  EXPECT_EQ(times_of(*world, WorldEventKind::kNodeResumed), std::vector<std::int64_t>{last_end_ns})
      << "resumed once, when the last pause ends";
  for (const std::int64_t sent : requests_sent(*world)) {
    EXPECT_FALSE(sent > faults.front().at_ns && sent < last_end_ns)
        << "the paused node sent a request at " << sent << " ns";
  }
  ASSERT_EQ(world->fault_effects().size(), faults.size());
  for (const FaultEffect& effect : world->fault_effects()) {
    EXPECT_GE(effect.wakeups_missed, 1u) << effect.describe(world->node_names());
    EXPECT_EQ(effect.wakeups_missed, effect.chances)
        << "a wake-up in the pause's window ran: " << effect.describe(world->node_names());
  }
}

TEST(Pause, APauseInsideAnotherEndsNothing) {
  expect_paused_until({pause(FaultKind::kStop, 5 * kSecond, 10 * kSecond),
                       pause(FaultKind::kStall, 8 * kSecond, 4 * kSecond)},
                      15 * kSecond);
}

TEST(Pause, APauseThatOutlastsAnotherHoldsTheNodeToItsEnd) {
  expect_paused_until({pause(FaultKind::kStall, 5 * kSecond, 10 * kSecond),
                       pause(FaultKind::kMigrate, 8 * kSecond, 12 * kSecond)},
                      20 * kSecond);
}

// Two pauses taken at one protocol moment, the longer first (a SIGSTOP as the renewal leaves, and
// a GC stall of 2 s at the same instant): the renewal the node sends at its next switch leaves
// when the node resumes, at the stop's end, not at the shorter stall's (red team 45a-19: the
// network's hold was the newest pause's end, and the renewal reached the store 8 s before its
// sender ran again).
TEST(Pause, WhatANodeSendsAsItIsTakenLeavesAtItsLastPausesEnd) {
  Fault stop = pause(FaultKind::kStop, 0, 10 * kSecond);
  stop.trigger = Trigger{runtime::EventKind::kRenewSent, 1};
  Fault stall = pause(FaultKind::kStall, 0, 2 * kSecond);
  stall.trigger = Trigger{runtime::EventKind::kRenewSent, 1};
  const auto world = run_paused({stop, stall});
  const std::vector<std::int64_t> paused = times_of(*world, WorldEventKind::kNodePaused);
  ASSERT_FALSE(paused.empty());
  for (const HistoryEvent& e : world->history().events()) {
    if (e.world != WorldEventKind::kStoreCall || !e.store || e.store->op != StoreOp::kRenew) {
      continue;
    }
    EXPECT_GE(e.time_ns, paused.front() + 10 * kSecond)
        << "the renewal sent as the stop began was handled at " << e.time_ns << " ns";
    break;
  }
}

// A crash ends the pauses of the process it kills: the restarted process is not paused by them.
// Stalled from 5 s to 30 s, crashed at 8 s and back at 10 s, stalled again from 12 s to 20 s: the
// new process resumes at 20 s, when its own stall ends, not when the dead one's would have.
TEST(Pause, APauseACrashEndedHoldsNothingOfTheRestartedProcess) {
  Fault crash{FaultKind::kCrash, "instance-1"};
  crash.at_ns = 8 * kSecond;
  crash.duration_ns = 2 * kSecond;
  const auto world =
      run_paused({pause(FaultKind::kStall, 5 * kSecond, 25 * kSecond), crash,
                  pause(FaultKind::kStall, 12 * kSecond, 8 * kSecond)});
  EXPECT_EQ(times_of(*world, WorldEventKind::kNodeRestarted),
            std::vector<std::int64_t>{10 * kSecond});
  EXPECT_EQ(times_of(*world, WorldEventKind::kNodeResumed), std::vector<std::int64_t>{20 * kSecond})
      << "the restarted process's own stall ends at 20 s";
}

// `kind` pauses instance-1 from 5 s to 35 s; the process crashes at 8 s and is back at 10 s: its
// requests must reach the lease store a network latency after it sent them, not when the dead
// process's pause would have ended (nor at the heal). Held, it would send nothing until 35 s.
void expect_restarted_process_sends_at_once(FaultKind kind) {
  Fault crash{FaultKind::kCrash, "instance-1"};
  crash.at_ns = 8 * kSecond;
  crash.duration_ns = 2 * kSecond;
  const auto world = run_paused({pause(kind, 5 * kSecond, 30 * kSecond), crash});
  ASSERT_EQ(times_of(*world, WorldEventKind::kNodeRestarted),
            std::vector<std::int64_t>{10 * kSecond});
  int after_restart = 0;
  for (const HistoryEvent& e : world->history().events()) {
    if (e.world != WorldEventKind::kStoreCall || !e.store || e.store->sent_ns < 10 * kSecond ||
        e.store->sent_ns >= 35 * kSecond) {
      continue;
    }
    ++after_restart;
    EXPECT_LT(e.time_ns - e.store->sent_ns, kSecond)
        << "sent at " << e.store->sent_ns << " ns, handled at " << e.time_ns << " ns";
  }
  EXPECT_GT(after_restart, 0) << "the restarted process asks for its lease from 10 s on";
}

// The network forgets the dead process's pause too: what the restarted process sends leaves at
// once.
TEST(Pause, TheRestartedProcessesSendsAreNotHeldByThePauseACrashEnded) {
  expect_restarted_process_sends_at_once(FaultKind::kStall);
}

// The same of a migration, which also holds what is on the wire to and from its machine: a crash
// ends that hold too.
TEST(Pause, TheRestartedProcessesMessagesAreNotHeldByTheMigrationACrashEnded) {
  expect_restarted_process_sends_at_once(FaultKind::kMigrate);
}

// A pause's ledger entry ends with the process it paused: a stall from 5 s, its process crashed
// at 8 s, is over at 8 s, and counts nothing of what a process restarted at 10 s does (sends,
// wake-ups) as chances it had. Its entry is the same whether a process comes back or not.
TEST(Pause, APauseACrashEndedCountsNothingOfTheNextProcess) {
  const auto stall_after = [](std::int64_t restart_after_ns) {
    Fault crash{FaultKind::kCrash, "instance-1"};
    crash.at_ns = 8 * kSecond;
    crash.duration_ns = restart_after_ns;  // 0: never restarted
    const auto world = run_paused({pause(FaultKind::kStall, 5 * kSecond, 30 * kSecond), crash});
    for (const HistoryEvent& e : world->history().events()) {
      if (e.world == WorldEventKind::kFaultEnded && e.detail.view().starts_with("stall")) {
        EXPECT_EQ(e.time_ns, 8 * kSecond) << "the stall ends with its process";
      }
    }
    return world->fault_effects().front();
  };
  const FaultEffect restarted = stall_after(2 * kSecond);
  const FaultEffect never = stall_after(0);
  ASSERT_EQ(restarted.kind, FaultKind::kStall);
  EXPECT_TRUE(restarted.ended);
  EXPECT_EQ(restarted.chances, never.chances);
  EXPECT_EQ(restarted.messages_held, never.messages_held);
  EXPECT_EQ(restarted.wakeups_missed, never.wakeups_missed);
}

}  // namespace
}  // namespace fencesim::sim::pause_test
