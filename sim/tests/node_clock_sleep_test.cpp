// A sleep measured on a node's own monotonic clock ends when that clock reads its deadline, even
// when the clock's rate changes during the sleep (a clock-drift fault). Before the fix, the wake
// was fixed in true time when the sleep began, so a clock made faster mid-sleep woke the sleeper
// late by its own clock (swarm seed 1393: a holder gave up its lease 11 ms after its local expiry).
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>

#include "sim/node_clock.h"
#include "sim/scheduler.h"
#include "sim/sim_env.h"
#include "sim/tests/scheduler_test_util.h"

namespace fencesim::sim::testing::node_clock_sleep_test {
namespace {

struct Sleeper {
  std::int64_t woke_true = -1;
  std::int64_t woke_local = -1;
};

// A node sleeps `local_ns` on its own clock, which drifts by `ppm_from_start` from the start and,
// if given, by `ppm_at_10s` from 10 s on.
Sleeper sleep_on_its_own_clock(std::int64_t local_ns, std::int64_t ppm_from_start,
                               std::optional<std::int64_t> ppm_at_10s) {
  Scheduler world({.seed = 1});
  NodeClock clock;
  clock.set_drift_ppm(0, ppm_from_start);
  SimEnv env(world, 1, clock, Rng(1));
  Sleeper sleeper;
  world.spawn(1, "sleeper", [&] {
    env.sleep(local_ns);
    sleeper.woke_true = world.now_ns();
    sleeper.woke_local = env.monotonic_ns();
  });
  if (ppm_at_10s) {
    world.at(10 * kSec, [&] {
      clock.set_drift_ppm(world.now_ns(), *ppm_at_10s);
      world.retime_local_sleeps(1, [&](std::int64_t local) { return clock.true_time_when(local); });
    });
  }
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  return sleeper;
}

// A node sleeps 30 s on its own clock; at 10 s its clock's rate becomes `ppm`.
Sleeper sleep_across_a_rate_change(std::int64_t ppm) {
  return sleep_on_its_own_clock(30 * kSec, 0, ppm);
}

TEST(NodeClockSleepTest, AClockMadeFasterMidSleepWakesItEarlierInTrueTime) {
  const Sleeper s = sleep_across_a_rate_change(1000);
  // 20 s of local time left at 10 s, at 1.001 local seconds per true second.
  EXPECT_EQ(s.woke_local, 30 * kSec);
  EXPECT_LT(s.woke_true, 30 * kSec);
  EXPECT_NEAR(static_cast<double>(s.woke_true), 10e9 + 20e9 / 1.001, 2.0);
}

TEST(NodeClockSleepTest, AClockMadeSlowerMidSleepWakesItLaterInTrueTime) {
  const Sleeper s = sleep_across_a_rate_change(-1000);
  EXPECT_EQ(s.woke_local, 30 * kSec);
  EXPECT_GT(s.woke_true, 30 * kSec);
}

// A clock that already runs fast when the sleep begins: the sleep is measured on it from the start
// (not in true time, with only a later rate change moving it), so the sleeper wakes when its own
// clock reads the end, earlier in true time.
TEST(NodeClockSleepTest, ASleepOnAFastClockEndsWhenTheNodesClockReadsItsEnd) {
  const Sleeper sleeper = sleep_on_its_own_clock(20 * kSec, 1000, std::nullopt);
  EXPECT_EQ(sleeper.woke_local, 20 * kSec);
  EXPECT_NEAR(static_cast<double>(sleeper.woke_true), 20e9 / 1.001, 2.0);
}

TEST(NodeClockSleepTest, ATrueTimeSleepIsNotMovedByTheNodesClock) {
  Scheduler world({.seed = 1});
  NodeClock clock;
  std::int64_t woke = -1;
  world.spawn(1, "true-time", [&] {
    world.sleep_for(30 * kSec);
    woke = world.now_ns();
  });
  world.at(10 * kSec, [&] {
    clock.set_drift_ppm(world.now_ns(), 1000);
    world.retime_local_sleeps(1, [&](std::int64_t local) { return clock.true_time_when(local); });
  });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  EXPECT_EQ(woke, 30 * kSec);
}

TEST(NodeClockSleepTest, AnotherNodesSleepIsNotMoved) {
  Scheduler world({.seed = 1});
  NodeClock clock_1, clock_2;
  SimEnv env_2(world, 2, clock_2, Rng(2));
  std::int64_t woke = -1;
  world.spawn(2, "other", [&] {
    env_2.sleep(30 * kSec);
    woke = world.now_ns();
  });
  world.at(10 * kSec, [&] {
    clock_1.set_drift_ppm(world.now_ns(), 1000);
    world.retime_local_sleeps(1, [&](std::int64_t local) { return clock_1.true_time_when(local); });
  });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  EXPECT_EQ(woke, 30 * kSec);
}

}  // namespace
}  // namespace fencesim::sim::testing::node_clock_sleep_test
