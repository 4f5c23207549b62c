#pragma once
// Runs a real world through properties::run_scenario and keeps what the reports draw of it: the
// timeline data and the Perfetto trace, taken from the finished world in the inspect callback.
#include <nlohmann/json.hpp>
#include <string>

#include "properties/run.h"
#include "reports/perfetto.h"
#include "reports/timeline.h"
#include "scenarios/scenario.h"

namespace fencesim::reports::testing {

struct Captured {
  properties::RunReport report;
  nlohmann::ordered_json timeline;
  nlohmann::ordered_json trace;
  std::vector<std::string> node_names;
};

inline Captured run_and_capture(const std::string& scenario, std::uint64_t seed,
                                const std::string& sink_double = "",
                                const TimelineContext& context = {},
                                sim::Strategy strategy = sim::Strategy::kRandomWalk) {
  static const scenarios::ScenarioRegistry registry = scenarios::builtin_scenarios();
  properties::RunRequest request;
  request.scenario = scenario;
  request.seed = seed;
  request.sink_double = sink_double;
  request.strategy = strategy;
  Captured captured;
  captured.report = properties::run_scenario(
      registry, request, [&](const sim::World& world, const properties::RunReport& report) {
        captured.timeline = timeline_json(world, report, context);
        captured.trace = perfetto_trace(world, report);
        captured.node_names = world.node_names();
      });
  return captured;
}

// The failing run every report test draws: the stale write that a broken sink accepts.
inline const Captured& failing_kleppmann() {
  static const Captured captured = [] {
    TimelineContext context;
    context.replay_command = "fencesim replay fencesim-replay-kleppmann-fencing-1.json";
    return run_and_capture("kleppmann-fencing", 1, "accept-stale", context);
  }();
  return captured;
}

inline const Captured& passing_kleppmann() {
  static const Captured captured = run_and_capture("kleppmann-fencing", 1);
  return captured;
}

// The items of `array` whose `field` equals `value`.
inline std::vector<nlohmann::ordered_json> where(const nlohmann::ordered_json& array,
                                                 const std::string& field,
                                                 const nlohmann::ordered_json& value) {
  std::vector<nlohmann::ordered_json> found;
  for (const auto& item : array) {
    if (item.contains(field) && item[field] == value) found.push_back(item);
  }
  return found;
}

}  // namespace fencesim::reports::testing
