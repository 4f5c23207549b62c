#include "cli/execute.h"

#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <fstream>

#include "cli/parse.h"
#include "reports/replay_file.h"

namespace fencesim::cli {

void check_scenario(const scenarios::ScenarioRegistry& registry, const std::string& name) {
  if (registry.find(name) == nullptr) {
    throw UsageError(fmt::format("unknown scenario '{}' (try 'fencesim list')", name));
  }
}

namespace {

double thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

void write_trace(std::ofstream& trace, const sim::World& world) {
  for (const sim::HistoryEvent& event : world.history().events()) {
    trace << sim::describe(event, world.node_names()) << '\n';
  }
}

}  // namespace

TimedRun execute(const scenarios::ScenarioRegistry& registry, const properties::RunRequest& request,
                 const std::string& trace_path, const Inspect& inspect) {
  check_scenario(registry, request.scenario);
  std::ofstream trace;
  if (!trace_path.empty()) {
    trace.open(trace_path, std::ios::trunc);
    if (!trace) throw UsageError(fmt::format("--trace: cannot write '{}'", trace_path));
  }
  const auto observe = [&](const sim::World& world, const properties::RunReport& report) {
    if (trace.is_open()) write_trace(trace, world);
    if (inspect) inspect(world, report);
  };
  TimedRun run;
  const double cpu_started = thread_cpu_seconds();
  const auto started = std::chrono::steady_clock::now();
  try {
    run.report = properties::run_scenario(registry, request, observe);
  } catch (const properties::UsageError&) {
    throw;
  } catch (const std::exception& error) {
    throw HarnessFailure(fmt::format("harness error in scenario '{}' seed {} (strategy {}): {}",
                                     request.scenario, request.seed,
                                     reports::strategy_name(request), error.what()));
  }
  const auto elapsed = std::chrono::steady_clock::now() - started;
  run.wall_seconds = std::chrono::duration<double>(elapsed).count();
  run.cpu_seconds = thread_cpu_seconds() - cpu_started;
  if (trace.is_open()) {
    trace.flush();
    if (!trace) throw UsageError(fmt::format("--trace: cannot write '{}'", trace_path));
  }
  return run;
}

}  // namespace fencesim::cli
