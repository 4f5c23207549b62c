// `fencesim bench`: issue 13's speed figures from one run of this binary, on one thread (so one
// core), every invariant on. Every figure that is compared is a ratio of two things measured in
// this same process a few seconds apart (a raw Boost.Fiber switch, the simulator's switch, whole
// runs of a scenario), so that a loaded or slow machine moves both sides alike. Wall and CPU time
// are both printed: on a shared machine the CPU column is the one to read for an idle core.
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <dlfcn.h>
#include <time.h>

#include <algorithm>
#include <boost/fiber/fiber.hpp>
#include <boost/fiber/operations.hpp>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <ostream>
#include <thread>
#include <vector>

#include "cli/bench_figures.h"
#include "cli/commands.h"
#include "cli/parse.h"
#include "properties/run.h"
#include "reports/replay_file.h"
#include "sim/scheduler.h"
#include "sim/stack_pool.h"

namespace fencesim::cli {

namespace {

// The goals (issue 13 section 1).
constexpr double kGoalVirtualPerWall = 150'000;
constexpr double kGoalEventsPerSecond = 2'000'000;
constexpr double kGoalEventPerSwitch = 8;
constexpr double kGoalPctPerRoundRobin = 1.0;

struct BenchClock {
  std::chrono::steady_clock::time_point wall = std::chrono::steady_clock::now();
  double cpu = thread_cpu_seconds();

  static double thread_cpu_seconds() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
  }
};

struct Spent {
  double wall = 0;  // seconds
  double cpu = 0;   // seconds of this thread

  static Spent since(const BenchClock& start) {
    const BenchClock end;
    return {std::chrono::duration<double>(end.wall - start.wall).count(), end.cpu - start.cpu};
  }
};

// Ping-pong between two fibers: `switches` switches in all. Boost installs its scheduling
// algorithm per thread, so each measurement gets a fresh thread (a clean round_robin).
Spent raw_switches(std::uint64_t switches) {
  Spent spent;
  std::thread thread([&] {
    bool done = false;
    boost::fibers::fiber pong([&done] {
      while (!done) boost::this_fiber::yield();
    });
    const BenchClock start;
    boost::fibers::fiber ping([&done, switches] {
      for (std::uint64_t i = 0; i < switches / 2; ++i) boost::this_fiber::yield();
      done = true;
    });
    ping.join();
    spent = Spent::since(start);
    pong.join();
  });
  thread.join();
  return spent;
}

Spent sim_switches(std::uint64_t switches, sim::Strategy strategy) {
  Spent spent;
  std::thread thread([&] {
    sim::Scheduler world({.seed = 1, .strategy = strategy});
    bool done = false;
    world.spawn(1, "pong", [&world, &done] {
      while (!done) world.yield();
    });
    world.spawn(1, "ping", [&world, &done, switches] {
      for (std::uint64_t i = 0; i < switches / 2; ++i) world.yield();
      done = true;
    });
    const BenchClock start;
    world.run();
    spent = Spent::since(start);
  });
  thread.join();
  return spent;
}

// Nanoseconds per switch of each kind, the median of three rounds taken back to back.
struct Switches {
  double raw = 0;
  double random_walk = 0;
  double pct = 0;
};

Switches measure_switches(std::uint64_t switches) {
  std::vector<double> raw;
  std::vector<double> random_walk;
  std::vector<double> pct;
  const auto per_switch = [switches](Spent spent) {
    return spent.wall * 1e9 / static_cast<double>(switches);
  };
  for (int round = 0; round < 3; ++round) {
    raw.push_back(per_switch(raw_switches(switches)));
    random_walk.push_back(per_switch(sim_switches(switches, sim::Strategy::kRandomWalk)));
    pct.push_back(per_switch(sim_switches(switches, sim::Strategy::kPct)));
  }
  return {median_of_rounds(raw), median_of_rounds(random_walk), median_of_rounds(pct)};
}

struct Runs {
  std::uint64_t runs = 0;
  std::uint64_t failed = 0;  // violations or liveness: a built-in scenario should have none
  std::uint64_t events = 0;
  double virtual_seconds = 0;
  Spent spent;
};

Runs run_seeds(const scenarios::ScenarioRegistry& registry, const std::string& scenario,
               SeedRange seeds, sim::Strategy strategy) {
  properties::RunRequest request;
  request.scenario = scenario;
  request.strategy = strategy;
  request.stack_pool = std::make_shared<sim::StackPool>();  // as a sweep's worker shares one
  Runs runs;
  const BenchClock start;
  for (std::uint64_t seed = seeds.first;; ++seed) {
    request.seed = seed;
    const properties::RunReport report = properties::run_scenario(registry, request);
    if (report.status == properties::RunStatus::kHarnessError) {
      throw UsageError(
          fmt::format("bench: {} seed {}: harness error: {}", scenario, seed, report.detail));
    }
    ++runs.runs;
    if (report.status != properties::RunStatus::kPass) ++runs.failed;
    runs.events += report.events;
    runs.virtual_seconds += static_cast<double>(report.virtual_ns) / 1e9;
    if (seed == seeds.last) break;
  }
  runs.spent = Spent::since(start);
  return runs;
}

std::string verdict(bool met) {
  return met ? "met" : "MISSED";
}

// Prints one strategy's whole runs; returns wall nanoseconds per history event.
double print_runs(std::ostream& out, const std::string& scenario, sim::Strategy strategy,
                  const Runs& runs, double raw_switch_ns) {
  const double events = static_cast<double>(std::max<std::uint64_t>(runs.events, 1));
  const double virtual_per_wall = runs.virtual_seconds / runs.spent.wall;
  const double virtual_per_cpu = runs.virtual_seconds / runs.spent.cpu;
  const double events_per_wall = events / runs.spent.wall;
  const double events_per_cpu = events / runs.spent.cpu;
  const double ns_per_event = runs.spent.wall * 1e9 / events;
  fmt::print(out,
             "{} {}: {} runs ({} failed), {} history events, {:.0f} virtual s in {:.3f} s wall "
             "({:.3f} s CPU)\n",
             scenario, reports::strategy_name(strategy), runs.runs, runs.failed, runs.events,
             runs.virtual_seconds, runs.spent.wall, runs.spent.cpu);
  fmt::print(out, "  virtual/wall {:.0f}x (CPU basis {:.0f}x; goal >= {:.0f}x): {}\n",
             virtual_per_wall, virtual_per_cpu, kGoalVirtualPerWall,
             verdict(virtual_per_wall >= kGoalVirtualPerWall));
  fmt::print(out, "  history events/s {:.0f} (CPU basis {:.0f}; goal >= {:.0f}): {}\n",
             events_per_wall, events_per_cpu, kGoalEventsPerSecond,
             verdict(events_per_wall >= kGoalEventsPerSecond));
  fmt::print(
      out,
      "  wall per history event {:.0f} ns = {:.1f}x a raw fiber switch (goal <= {:.0f}x): {}\n",
      ns_per_event, ns_per_event / raw_switch_ns, kGoalEventPerSwitch,
      verdict(ns_per_event / raw_switch_ns <= kGoalEventPerSwitch));
  return ns_per_event;
}

// Which allocator the process runs on: the figures depend on it (CMakeLists.txt links mimalloc
// when it is installed; LD_PRELOAD may bring another). Looked up, not configured, so a figure says
// what actually ran.
std::string allocator_in_use() {
  using Version = int (*)();
  if (void* symbol = dlsym(RTLD_DEFAULT, "mi_version"); symbol != nullptr) {
    const int version = reinterpret_cast<Version>(symbol)();
    return fmt::format("mimalloc {}.{}.{}", version / 100, (version / 10) % 10, version % 10);
  }
  return "the C library's malloc";
}

std::string load_average() {
  double load[3] = {0, 0, 0};
  if (getloadavg(load, 3) != 3) return "unknown";
  return fmt::format("{:.2f} {:.2f} {:.2f} ({} cores)", load[0], load[1], load[2],
                     std::thread::hardware_concurrency());
}

}  // namespace

int bench_command(const scenarios::ScenarioRegistry& registry, const BenchArgs& args,
                  std::ostream& out, std::ostream&) {
  if (registry.find(args.scenario) == nullptr) {
    throw UsageError(
        fmt::format("--scenario: unknown scenario '{}' (try 'fencesim list')", args.scenario));
  }
  const SeedRange seeds = parse_seed_range("--seeds", args.seeds);
  const std::uint64_t switches = parse_seed("--switches", args.switches);
  if (switches < 1000) throw UsageError("--switches: at least 1000");

  fmt::print(out,
             "fencesim bench: {} seeds {}..{}, one thread, every invariant on, {}; load average "
             "{}\n",
             args.scenario, seeds.first, seeds.last, allocator_in_use(), load_average());
  const Switches before = measure_switches(switches);
  const Runs random_walk = run_seeds(registry, args.scenario, seeds, sim::Strategy::kRandomWalk);
  const Runs pct = run_seeds(registry, args.scenario, seeds, sim::Strategy::kPct);
  const Switches after = measure_switches(switches);
  // The switch costs bracket the runs; their mean is the figure the runs are compared with.
  const Switches cost{(before.raw + after.raw) / 2, (before.random_walk + after.random_walk) / 2,
                      (before.pct + after.pct) / 2};

  fmt::print(out,
             "raw Boost.Fiber switch (round_robin, ping-pong, {} switches): {:.1f} ns "
             "(before the runs {:.1f}, after {:.1f})\n",
             switches, cost.raw, before.raw, after.raw);
  // Each figure with the two it is the mean of, as the raw switch's: a reader (and a test) can
  // see that every mean brackets the runs with its own kind's two measures.
  fmt::print(out,
             "simulator switch: random walk {:.1f} ns (before the runs {:.1f}, after {:.1f}) = "
             "{:.2f}x round_robin; PCT {:.1f} ns (before the runs {:.1f}, after {:.1f}) = "
             "{:.2f}x round_robin (goal <= {:.1f}x): {}\n",
             cost.random_walk, before.random_walk, after.random_walk, cost.random_walk / cost.raw,
             cost.pct, before.pct, after.pct, cost.pct / cost.raw, kGoalPctPerRoundRobin,
             verdict(cost.pct / cost.raw <= kGoalPctPerRoundRobin));
  const double random_ns =
      print_runs(out, args.scenario, sim::Strategy::kRandomWalk, random_walk, cost.raw);
  const double pct_ns = print_runs(out, args.scenario, sim::Strategy::kPct, pct, cost.raw);
  fmt::print(out, "PCT wall per history event / random walk's: {:.2f}x\n", pct_ns / random_ns);
  fmt::print(out, "load average after: {}\n", load_average());
  return kExitPass;
}

}  // namespace fencesim::cli
