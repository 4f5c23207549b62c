// Pause, resume and kill of simulated nodes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/scheduler.h"
#include "sim/tests/scheduler_test_util.h"

namespace fencesim::sim::testing::scheduler_nodes_test {
namespace {

TEST(SchedulerNodesTest, PausedNodeSleepsOverdueUntilResume) {
  Scheduler world({.seed = 1});
  std::int64_t woke_at = -1;
  std::vector<std::int64_t> other_ticks;
  world.spawn(1, "paused", [&] {
    world.sleep_for(10 * kMs);
    woke_at = world.now_ns();
  });
  world.spawn(2, "running", [&] {
    for (int i = 0; i < 4; ++i) {
      world.sleep_for(10 * kMs);
      other_ticks.push_back(world.now_ns());
    }
  });
  world.at(5 * kMs, [&] { world.pause_node(1); });
  world.at(50 * kMs, [&] {
    EXPECT_EQ(woke_at, -1);
    EXPECT_TRUE(world.node_paused(1));
    world.resume_node(1);
  });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  EXPECT_EQ(woke_at, 50 * kMs);  // overdue: it ran at resume, not at 10 ms
  // Time went on around the paused node.
  EXPECT_EQ(other_ticks, (std::vector<std::int64_t>{10 * kMs, 20 * kMs, 30 * kMs, 40 * kMs}));
  EXPECT_FALSE(world.node_paused(1));
}

TEST(SchedulerNodesTest, APauseReportsTheReadyFibersItHolds) {
  // The fault ledger counts what a pause held (sim/fault_ledger.h) through this hook: a fiber
  // already ready when its node is paused is held by the pause, and must be reported as such.
  Scheduler world({.seed = 1});
  std::vector<std::pair<NodeId, bool>> readied;
  world.set_ready_hook([&](NodeId node, bool held) { readied.emplace_back(node, held); });
  Waiter signal;
  world.spawn(1, "client", [&] { world.block(signal); });
  world.at(1 * kMs, [&] {
    world.wake(signal);   // ready...
    world.pause_node(1);  // ...and held by the pause before it ran
  });
  world.at(5 * kMs, [&] { world.resume_node(1); });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  std::size_t held = 0;
  for (const auto& [node, was_held] : readied) held += node == 1 && was_held;
  EXPECT_EQ(held, 1u);
}

TEST(SchedulerNodesTest, WakeOfAPausedNodeWaitsForResume) {
  Scheduler world({.seed = 1});
  Waiter reply;
  std::int64_t got_reply_at = -1;
  world.spawn(1, "client", [&] {
    world.block(reply);
    got_reply_at = world.now_ns();
  });
  world.at(1 * kMs, [&] { world.pause_node(1); });
  world.at(2 * kMs, [&] { world.wake(reply); });
  world.at(9 * kMs, [&] { world.resume_node(1); });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  EXPECT_EQ(got_reply_at, 9 * kMs);
}

TEST(SchedulerNodesTest, PausedReadyFibersAreIdleNotDeadlock) {
  Scheduler world({.seed = 1});
  bool finished = false;
  world.spawn(1, "stopped", [&] {
    world.sleep_for(kMs);
    finished = true;
  });
  world.pause_node(1);
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  EXPECT_FALSE(finished);
  EXPECT_EQ(world.live_fibers(), 1u);
  EXPECT_NE(world.deadlock_report().find("held by its paused node"), std::string::npos);
  world.resume_node(1);
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  EXPECT_TRUE(finished);
  EXPECT_EQ(world.live_fibers(), 0u);
}

TEST(SchedulerNodesTest, FiberThatPausesItsOwnNodeStopsAtItsNextSwitch) {
  Scheduler world({.seed = 1});
  std::vector<std::string> events;
  world.spawn(1, "self", [&] {
    world.pause_node(1);
    events.push_back("after pause");
    world.yield();
    events.push_back("after resume");
  });
  world.at(kSec, [&] {
    events.push_back("resume");
    world.resume_node(1);
  });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  EXPECT_EQ(events, (std::vector<std::string>{"after pause", "resume", "after resume"}));
}

TEST(SchedulerNodesTest, KillUnwindsASleepingFiber) {
  Scheduler world({.seed = 1});
  bool destroyed = false;
  bool woke = false;
  world.spawn(1, "sleeper", [&] {
    SetOnDestroy guard(destroyed);
    world.sleep_for(kSec);
    woke = true;
  });
  world.at(5 * kMs, [&] { world.kill_node(1); });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  EXPECT_TRUE(destroyed);
  EXPECT_FALSE(woke);
  EXPECT_EQ(world.now_ns(), 5 * kMs);  // the sleep was cut short: nothing left at 1 s
  EXPECT_EQ(world.live_fibers(), 0u);
  EXPECT_EQ(world.fiber_error(), "");
}

TEST(SchedulerNodesTest, KillUnwindsABlockedFiber) {
  Scheduler world({.seed = 1});
  Waiter never;
  bool destroyed = false;
  world.spawn(1, "blocked", [&] {
    SetOnDestroy guard(destroyed);
    world.block(never);
  });
  world.at(kMs, [&] { world.kill_node(1); });
  EXPECT_EQ(world.run(), RunStatus::kIdle);  // not a deadlock: the fiber is gone
  EXPECT_TRUE(destroyed);
  EXPECT_FALSE(never.waiting());
  EXPECT_EQ(world.live_fibers(), 0u);
}

TEST(SchedulerNodesTest, KillOnlyTouchesTheKilledNode) {
  Scheduler world({.seed = 1});
  bool survivor_done = false;
  world.spawn(1, "victim", [&] { world.sleep_for(kSec); });
  world.spawn(2, "survivor", [&] {
    world.sleep_for(2 * kSec);
    survivor_done = true;
  });
  world.at(kMs, [&] { world.kill_node(1); });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  EXPECT_TRUE(survivor_done);
  EXPECT_EQ(world.now_ns(), 2 * kSec);
}

TEST(SchedulerNodesTest, KillOfAPausedNodeUnwindsItsFibers) {
  Scheduler world({.seed = 1});
  bool destroyed = false;
  world.spawn(1, "f", [&] {
    SetOnDestroy guard(destroyed);
    world.sleep_for(kMs);
    world.sleep_for(kSec);
  });
  world.at(0, [&] { world.pause_node(1); });
  world.at(5 * kMs, [&] { world.kill_node(1); });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  EXPECT_TRUE(destroyed);
  EXPECT_FALSE(world.node_paused(1));
}

TEST(SchedulerNodesTest, SelfKillUnwindsAtTheNextBlockingCall) {
  Scheduler world({.seed = 1});
  bool destroyed = false;
  std::vector<std::string> events;
  world.spawn(1, "suicidal", [&] {
    SetOnDestroy guard(destroyed);
    world.kill_node(1);
    events.push_back("still running");
    world.yield();
    events.push_back("never");
  });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  EXPECT_TRUE(destroyed);
  EXPECT_EQ(events, (std::vector<std::string>{"still running"}));
}

TEST(SchedulerNodesTest, RestartedNodeRunsANewIncarnation) {
  Scheduler world({.seed = 1});
  std::vector<std::string> lives;
  world.spawn(1, "first life", [&] {
    world.sleep_for(kSec);
    lives.push_back("first survived");
  });
  world.at(kMs, [&] {
    world.kill_node(1);
    world.spawn(1, "second life", [&] {
      world.sleep_for(kMs);
      lives.push_back("second");
    });
  });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  EXPECT_EQ(lives, (std::vector<std::string>{"second"}));
  EXPECT_EQ(world.node_incarnation(1), 1u);
}

TEST(SchedulerNodesTest, PausingTheNextIncarnationDoesNotHoldTheUnwinding) {
  Scheduler world({.seed = 1});
  bool old_unwound = false;
  bool new_ran = false;
  world.spawn(1, "old", [&] {
    SetOnDestroy guard(old_unwound);
    world.sleep_for(kSec);
  });
  world.at(kMs, [&] {
    world.kill_node(1);
    world.spawn(1, "new", [&] { new_ran = true; });
    world.pause_node(1);  // e.g. a restart that is stopped at once
  });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  EXPECT_TRUE(old_unwound);
  EXPECT_FALSE(new_ran);
  world.resume_node(1);
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  EXPECT_TRUE(new_ran);
}

// The unwinding may switch again (a handler that catches Killed and makes a blocking call, which
// yields before it throws Killed anew): the fiber is filed ready again while its node's next life
// is paused, and must still run, or the dead process's fiber waits for the new one's SIGCONT.
TEST(SchedulerNodesTest, AKilledFiberReadiedDuringTheNextIncarnationsPauseIsNotHeld) {
  Scheduler world({.seed = 1});
  bool old_unwound = false;
  int caught = 0;
  world.spawn(1, "old", [&] {
    SetOnDestroy guard(old_unwound);
    try {
      world.sleep_for(kSec);
    } catch (const Killed&) {
      ++caught;
      world.sleep_for(kSec);  // yields, then throws Killed again
    }
  });
  world.at(kMs, [&] {
    world.kill_node(1);
    world.pause_node(1);  // the restarted process, stopped at once
  });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  EXPECT_EQ(caught, 1);
  EXPECT_TRUE(old_unwound);
  EXPECT_EQ(world.now_ns(), kMs);
}

TEST(SchedulerNodesTest, StaleWakeOfAKilledFiberDoesNothing) {
  Scheduler world({.seed = 1});
  Waiter old_reply;  // outlives the first incarnation, as an rpc slot held by the network would
  Waiter new_reply;
  bool old_returned = false;
  world.spawn(1, "old", [&] {
    world.block(old_reply);
    old_returned = true;
  });
  world.at(kMs, [&] {
    world.kill_node(1);
    world.spawn(1, "new", [&] { world.block(new_reply); });
  });
  world.at(2 * kMs, [&] { world.wake(old_reply); });  // the reply to the dead incarnation
  EXPECT_EQ(world.run(), RunStatus::kDeadlock);
  EXPECT_FALSE(old_returned);
  const std::string report = world.deadlock_report();
  EXPECT_NE(report.find("'new' (node 1, incarnation 1)"), std::string::npos) << report;
  EXPECT_EQ(report.find("'old'"), std::string::npos) << report;
}

TEST(SchedulerNodesTest, KilledFiberThatCatchesKilledIsKilledAgain) {
  Scheduler world({.seed = 1});
  int caught = 0;
  world.spawn(1, "stubborn", [&] {
    for (int i = 0; i < 3; ++i) {
      try {
        world.sleep_for(kSec);
      } catch (const Killed&) {
        ++caught;
      }
    }
  });
  world.at(kMs, [&] { world.kill_node(1); });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  EXPECT_EQ(caught, 3);
  EXPECT_EQ(world.now_ns(), kMs);
}

}  // namespace
}  // namespace fencesim::sim::testing::scheduler_nodes_test
