// The cost of the simulated world's scheduling against Boost.Fiber's stock round_robin.
//
// Every benchmark runs its fibers on a fresh std::thread: Boost installs the scheduling algorithm
// per thread, and a fresh thread starts with a clean round_robin, so the two never mix.
#include <benchmark/benchmark.h>

#include <boost/fiber/fiber.hpp>
#include <boost/fiber/operations.hpp>
#include <cstdint>
#include <string>
#include <thread>

#include "sim/scheduler.h"

namespace {

using fencesim::sim::Scheduler;
using fencesim::sim::Strategy;

template <typename Fn>
void on_fresh_thread(Fn fn) {
  std::thread thread(fn);
  thread.join();
}

// Reports the time of one switch: each iteration is two (ping to pong and back).
void report_switches(benchmark::State& state, std::int64_t switches_per_iteration) {
  state.counters["per_switch"] =
      benchmark::Counter(static_cast<double>(state.iterations() * switches_per_iteration),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_PingPong_RoundRobin(benchmark::State& state) {
  on_fresh_thread([&state] {
    bool done = false;
    boost::fibers::fiber pong([&done] {
      while (!done) boost::this_fiber::yield();
    });
    boost::fibers::fiber ping([&state, &done] {
      for (auto _ : state) boost::this_fiber::yield();
      done = true;
    });
    ping.join();
    pong.join();
  });
  report_switches(state, 2);
}
BENCHMARK(BM_PingPong_RoundRobin);

void ping_pong_in_world(benchmark::State& state, Strategy strategy) {
  on_fresh_thread([&state, strategy] {
    Scheduler world({.seed = 1, .strategy = strategy});
    bool done = false;
    world.spawn(1, "pong", [&world, &done] {
      while (!done) world.yield();
    });
    world.spawn(1, "ping", [&world, &state, &done] {
      for (auto _ : state) world.yield();
      done = true;
    });
    world.run();
  });
  report_switches(state, 2);
}

void BM_PingPong_SimRandomWalk(benchmark::State& state) {
  ping_pong_in_world(state, Strategy::kRandomWalk);
}
BENCHMARK(BM_PingPong_SimRandomWalk);

void BM_PingPong_SimPct(benchmark::State& state) {
  ping_pong_in_world(state, Strategy::kPct);
}
BENCHMARK(BM_PingPong_SimPct);

// Eight fibers yielding: every switch is a seeded draw among seven candidates.
void BM_YieldAmongEight_SimRandomWalk(benchmark::State& state) {
  on_fresh_thread([&state] {
    Scheduler world({.seed = 1});
    bool done = false;
    for (int i = 0; i < 7; ++i) {
      world.spawn(1, "other", [&world, &done] {
        while (!done) world.yield();
      });
    }
    world.spawn(1, "measured", [&world, &state, &done] {
      for (auto _ : state) world.yield();
      done = true;
    });
    world.run();
  });
  report_switches(state, 8);
}
BENCHMARK(BM_YieldAmongEight_SimRandomWalk);

// A fiber sleeping 1 µs of virtual time in a loop: park, hand control to run(), advance virtual
// time, wake the sleeper, switch back. range(0) other fibers sleep far in the future meanwhile.
void BM_VirtualSleepWakeup(benchmark::State& state) {
  const auto idle_sleepers = static_cast<int>(state.range(0));
  on_fresh_thread([&state, idle_sleepers] {
    Scheduler world({.seed = 1});
    for (int i = 0; i < idle_sleepers; ++i) {
      world.spawn(2, "idle", [&world] { world.sleep_for(std::int64_t{1} << 60); });
    }
    world.spawn(1, "sleeper", [&world, &state] {
      for (auto _ : state) world.sleep_for(1000);
      world.stop();
    });
    world.run();
  });
}
BENCHMARK(BM_VirtualSleepWakeup)->Arg(0)->Arg(100);

// Spawn a fiber, run it to its end, free it: the pooled stacks at work.
void BM_SpawnAndEnd(benchmark::State& state) {
  on_fresh_thread([&state] {
    Scheduler world({.seed = 1});
    world.spawn(0, "spawner", [&world, &state] {
      for (auto _ : state) {
        world.spawn(1, "child", [] {});
        world.yield();
      }
    });
    world.run();
  });
}
BENCHMARK(BM_SpawnAndEnd);

}  // namespace

BENCHMARK_MAIN();
