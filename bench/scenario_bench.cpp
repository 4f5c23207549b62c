// Whole runs of the built-in scenarios through properties::run_scenario, as a sweep does them:
// one seed per iteration (seed = iteration index + 1), worlds built one after another on this
// thread, fiber stacks shared through one sim::StackPool. Reports seeds per second
// (items_per_second), virtual seconds simulated per wall second, and history events per second.
// Wall time (UseRealTime), not CPU time: that is what a CI time budget pays.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <string>

#include "properties/run.h"
#include "scenarios/scenario.h"
#include "sim/stack_pool.h"

namespace {

using fencesim::properties::RunReport;
using fencesim::properties::RunRequest;
using fencesim::properties::RunStatus;
using fencesim::sim::Strategy;

const fencesim::scenarios::ScenarioRegistry& registry() {
  static const auto builtin = fencesim::scenarios::builtin_scenarios();
  return builtin;
}

void run_seeds(benchmark::State& state, const std::string& scenario, Strategy strategy) {
  RunRequest request;
  request.scenario = scenario;
  request.strategy = strategy;
  request.stack_pool = std::make_shared<fencesim::sim::StackPool>();
  std::uint64_t seed = 0;
  double virtual_seconds = 0;
  double events = 0;
  double failures = 0;
  for (auto _ : state) {
    request.seed = ++seed;
    const RunReport report = fencesim::properties::run_scenario(registry(), request);
    if (report.status == RunStatus::kHarnessError) {
      state.SkipWithError(fmt::format("seed {}: {}", seed, report.detail).c_str());
      break;
    }
    if (report.status != RunStatus::kPass) ++failures;
    virtual_seconds += static_cast<double>(report.virtual_ns) / 1e9;
    events += static_cast<double>(report.events);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["virtual_s_per_s"] =
      benchmark::Counter(virtual_seconds, benchmark::Counter::kIsRate);
  state.counters["events_per_s"] = benchmark::Counter(events, benchmark::Counter::kIsRate);
  // Per run averages, to read the rates against.
  state.counters["events_per_run"] = benchmark::Counter(events, benchmark::Counter::kAvgIterations);
  state.counters["virtual_s_per_run"] =
      benchmark::Counter(virtual_seconds, benchmark::Counter::kAvgIterations);
  // Seeds that did not pass (violation or liveness): the built-in scenarios should have none.
  state.counters["failed_seeds"] = failures;
}

void BM_Scenario_Kleppmann_RandomWalk(benchmark::State& state) {
  run_seeds(state, "kleppmann-fencing", Strategy::kRandomWalk);
}
void BM_Scenario_Kleppmann_Pct(benchmark::State& state) {
  run_seeds(state, "kleppmann-fencing", Strategy::kPct);
}
void BM_Scenario_NightlyMix_RandomWalk(benchmark::State& state) {
  run_seeds(state, "nightly-mix", Strategy::kRandomWalk);
}
void BM_Scenario_NightlyMix_Pct(benchmark::State& state) {
  run_seeds(state, "nightly-mix", Strategy::kPct);
}
BENCHMARK(BM_Scenario_Kleppmann_RandomWalk)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Scenario_Kleppmann_Pct)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Scenario_NightlyMix_RandomWalk)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Scenario_NightlyMix_Pct)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace
