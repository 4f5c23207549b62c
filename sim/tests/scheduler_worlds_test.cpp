// Many worlds on one thread, teardown of live worlds, and one world per thread.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <memory>
#include <thread>

#include "runtime/check.h"
#include "sim/scheduler.h"
#include "sim/stack_pool.h"
#include "sim/tests/scheduler_test_util.h"

namespace fencesim::sim::testing::scheduler_worlds_test {
namespace {

// A small world; `finish` decides whether it runs to the end or is destroyed mid-flight with
// sleeping, blocked and paused fibers. Returns how many fiber frames were unwound (all five).
int small_world(std::uint64_t seed, const std::shared_ptr<StackPool>& pool, bool finish) {
  std::array<bool, 5> unwound{};
  {
    Scheduler world({.seed = seed, .stack_pool = pool});
    Waiter slot;
    for (int i = 0; i < 4; ++i) {
      world.spawn(static_cast<NodeId>(1 + i % 2), "worker", [&world, &unwound, i] {
        SetOnDestroy guard(unwound[static_cast<std::size_t>(i)]);
        world.sleep_for((i + 1) * kMs);
        world.yield();
        world.sleep_for(kMs);
      });
    }
    world.spawn(3, "blocked", [&world, &slot, &unwound] {
      SetOnDestroy guard(unwound[4]);
      world.block(slot);
    });
    if (finish) {
      world.at(3 * kMs, [&world, &slot] { world.wake(slot); });
      EXPECT_EQ(world.run(), RunStatus::kIdle);
      EXPECT_EQ(world.live_fibers(), 0u);
    } else {
      world.at(kMs / 2, [&world] { world.pause_node(2); });
      EXPECT_EQ(world.run_until(2 * kMs), RunStatus::kTimeReached);
      EXPECT_GT(world.live_fibers(), 0u);
    }
  }
  return static_cast<int>(std::count(unwound.begin(), unwound.end(), true));
}

TEST(SchedulerWorldsTest, TwoThousandWorldsOnOneThread) {
  auto pool = std::make_shared<StackPool>();
  for (std::uint64_t seed = 0; seed < 2000; ++seed) {
    ASSERT_EQ(small_world(seed, pool, seed % 2 == 0), 5) << "world " << seed;
    ASSERT_EQ(pool->outstanding(), 0u) << "world " << seed << " kept a stack";
  }
  // Stacks are reused: no more mapped than one world ever needs at once.
  EXPECT_LE(pool->mapped_total(), 5u);
}

TEST(SchedulerWorldsTest, DestroyingALiveWorldUnwindsEveryFiber) {
  bool sleeping = false;
  bool blocked = false;
  bool held = false;
  bool never_started = false;
  bool started_body = false;
  auto pool = std::make_shared<StackPool>();
  {
    Scheduler world({.seed = 9, .stack_pool = pool});
    Waiter never;
    world.spawn(1, "sleeping", [&] {
      SetOnDestroy guard(sleeping);
      world.sleep_for(kSec);
    });
    world.spawn(2, "blocked", [&] {
      SetOnDestroy guard(blocked);
      world.block(never);
    });
    world.spawn(3, "held", [&] {
      SetOnDestroy guard(held);
      world.sleep_for(2 * kMs);  // expires while paused: ready, but held
      world.yield();
    });
    world.at(kMs, [&] { world.pause_node(3); });
    world.at(2 * kSec, [] { FAIL() << "timers are dropped at teardown"; });
    EXPECT_EQ(world.run_until(5 * kMs), RunStatus::kTimeReached);
    world.spawn(4, "never started", [&, guard = std::make_shared<SetOnDestroy>(never_started)] {
      started_body = true;
    });
    EXPECT_EQ(world.live_fibers(), 4u);
  }
  EXPECT_TRUE(sleeping);
  EXPECT_TRUE(blocked);
  EXPECT_TRUE(never_started);  // its body's captures were destroyed
  EXPECT_FALSE(started_body);  // a fiber killed before its first turn never starts its body
  EXPECT_TRUE(held);
  EXPECT_EQ(pool->outstanding(), 0u);
}

TEST(SchedulerWorldsTest, EndedFibersReturnTheirStacksWhileTheWorldStaysBusy) {
  // The spawner is always runnable, so the ready set never empties; ended children must still give
  // their stacks back.
  auto pool = std::make_shared<StackPool>();
  Scheduler world({.seed = 4, .stack_pool = pool});
  std::size_t most_outstanding = 0;
  world.spawn(0, "spawner", [&] {
    for (int i = 0; i < 5000; ++i) {
      world.spawn(1, "child", [] {});
      world.yield();
      most_outstanding = std::max(most_outstanding, pool->outstanding());
    }
  });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  EXPECT_LE(most_outstanding, 40u);
  EXPECT_LE(pool->mapped_total(), 40u);
}

TEST(SchedulerWorldsTest, OneLiveSchedulerPerThread) {
  Scheduler first({.seed = 1});
  EXPECT_THROW(Scheduler second({.seed = 2}), CheckFailure);
}

TEST(SchedulerWorldsTest, WorldsOnSeparateThreads) {
  std::int64_t ends[2] = {-1, -1};
  auto body = [](std::int64_t& end) {
    Scheduler world({.seed = 3});
    world.spawn(1, "f", [&world] { world.sleep_for(kSec); });
    world.run();
    end = world.now_ns();
  };
  std::thread a(body, std::ref(ends[0]));
  std::thread b(body, std::ref(ends[1]));
  a.join();
  b.join();
  EXPECT_EQ(ends[0], kSec);
  EXPECT_EQ(ends[1], kSec);
}

}  // namespace
}  // namespace fencesim::sim::testing::scheduler_worlds_test
