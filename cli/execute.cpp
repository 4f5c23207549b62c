#include "cli/execute.h"

#include <fmt/format.h>

#include <chrono>
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
  const auto started = std::chrono::steady_clock::now();
  try {
    run.report = properties::run_scenario(registry, request, observe);
  } catch (const properties::UsageError&) {
    throw;
  } catch (const std::exception& error) {
    throw HarnessFailure(fmt::format("harness error in scenario '{}' seed {} (strategy {}): {}",
                                     request.scenario, request.seed,
                                     reports::strategy_name(request.strategy), error.what()));
  }
  const auto elapsed = std::chrono::steady_clock::now() - started;
  run.wall_seconds = std::chrono::duration<double>(elapsed).count();
  if (trace.is_open()) {
    trace.flush();
    if (!trace) throw UsageError(fmt::format("--trace: cannot write '{}'", trace_path));
  }
  return run;
}

}  // namespace fencesim::cli
