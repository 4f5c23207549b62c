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

struct BenchClock {
  std::chrono::steady_clock::time_point wall = std::chrono::steady_clock::now();
  double cpu = thread_cpu_seconds();

  static double thread_cpu_seconds() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
  }
};

Spent spent_since(const BenchClock& start) {
  const BenchClock end;
  return {std::chrono::duration<double>(end.wall - start.wall).count(), end.cpu - start.cpu};
}

// Ping-pong between two fibers: about `switches` yields in all. Boost installs its scheduling
// algorithm per thread, so each measurement gets a fresh thread (a clean round_robin).
Measured raw_switches(std::uint64_t switches) {
  Measured measured;
  std::thread thread([&] {
    bool done = false;
    std::uint64_t yields = 0;
    boost::fibers::fiber pong([&done, &yields] {
      while (!done) {
        boost::this_fiber::yield();
        ++yields;
      }
    });
    const BenchClock start;
    boost::fibers::fiber ping([&done, &yields, switches] {
      for (std::uint64_t i = 0; i < switches / 2; ++i) {
        boost::this_fiber::yield();
        ++yields;
      }
      done = true;
    });
    ping.join();
    measured = {spent_since(start), yields};
    pong.join();
  });
  thread.join();
  return measured;
}

Measured sim_switches(std::uint64_t switches, sim::Strategy strategy) {
  Measured measured;
  std::thread thread([&] {
    sim::Scheduler world({.seed = 1, .strategy = strategy});
    bool done = false;
    std::uint64_t yields = 0;
    world.spawn(1, "pong", [&world, &done, &yields] {
      while (!done) {
        world.yield();
        ++yields;
      }
    });
    world.spawn(1, "ping", [&world, &done, &yields, switches] {
      for (std::uint64_t i = 0; i < switches / 2; ++i) {
        world.yield();
        ++yields;
      }
      done = true;
    });
    const BenchClock start;
    world.run();
    measured = {spent_since(start), yields};
  });
  thread.join();
  return measured;
}

// Nanoseconds per switch of each kind, the median of three rounds taken back to back.
Switches measure_switches(std::uint64_t switches) {
  std::vector<double> raw;
  std::vector<double> random_walk;
  std::vector<double> pct;
  for (int round = 0; round < 3; ++round) {
    raw.push_back(ns_per_yield(raw_switches(switches)));
    random_walk.push_back(ns_per_yield(sim_switches(switches, sim::Strategy::kRandomWalk)));
    pct.push_back(ns_per_yield(sim_switches(switches, sim::Strategy::kPct)));
  }
  return {median_of_rounds(raw), median_of_rounds(random_walk), median_of_rounds(pct), raw.size()};
}

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
  runs.spent = spent_since(start);
  return runs;
}

// Which allocator the process runs on: the figures depend on it (CMakeLists.txt links mimalloc
// when it is installed; LD_PRELOAD may bring another). Looked up, not configured, so a figure says
// what actually ran.
std::string allocator_in_use() {
  using Version = int (*)();
  if (void* symbol = dlsym(RTLD_DEFAULT, "mi_version"); symbol != nullptr) {
    const int version = reinterpret_cast<Version>(symbol)();
    return mimalloc_name(version);
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
  fmt::print(out, "{}", switch_lines(switches, before, after));
  const double raw_switch_ns = mean_of(before, after).raw;
  const RunsLines random_lines =
      runs_lines(args.scenario, reports::strategy_name(sim::Strategy::kRandomWalk), random_walk,
                 raw_switch_ns);
  const RunsLines pct_lines =
      runs_lines(args.scenario, reports::strategy_name(sim::Strategy::kPct), pct, raw_switch_ns);
  fmt::print(out, "{}{}", random_lines.text, pct_lines.text);
  fmt::print(out, "PCT wall per history event / random walk's: {:.2f}x\n",
             pct_lines.ns_per_event / random_lines.ns_per_event);
  fmt::print(out, "load average after: {}\n", load_average());
  return kExitPass;
}

}  // namespace fencesim::cli
