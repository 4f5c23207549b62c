#pragma once
// Runs a real world through properties::run_scenario and keeps what the reports draw of it: the
// timeline data and the Perfetto trace, taken from the finished world in the inspect callback.
#include <nlohmann/json.hpp>
#include <string>

#include "properties/run.h"
#include "reports/perfetto.h"
#include "reports/timeline.h"
#include "scenarios/scenario.h"
#include "scenarios/spec.h"

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

// The timeline of a spec's run (the text of a TOML scenario spec), at `seed`.
inline nlohmann::ordered_json spec_timeline(const std::string& spec_text, std::uint64_t seed) {
  scenarios::ScenarioRegistry registry = scenarios::builtin_scenarios();
  const std::string name = scenarios::register_spec_text(registry, spec_text, "aimed.toml");
  nlohmann::ordered_json timeline;
  properties::run_scenario(registry, properties::RunRequest{name, seed},
                           [&](const sim::World& world, const properties::RunReport& report) {
                             timeline = timeline_json(world, report, {});
                           });
  return timeline;
}

// The kleppmann-fencing spec the aimed-fault tests add one fault to.
inline const std::string kAimedSpecHead = R"(name = "aimed"
workload = "kleppmann-fencing"
workload_faults = "drop"
)";
// A delay aimed at the holder's expiry, lasting until the store's: it fires, drawn with its aim.
inline const std::string kAimedDelay = R"(
[[fault]]
kind = "network-delay"
node = "instance-1"
amount = "1ms"
after = "lease-taken"
aim = "holder-expiry"
delay = "-25s"
until = "store-expiry"
until_delay = "-2s"
)";
// A holder-expiry aim triggered at the lease store, which is no holder: a missed aim.
inline const std::string kMissedAim = R"(
[[fault]]
kind = "store-slow"
node = "lease-store"
amount = "1ms"
lasting = "1s"
after = "store-lease-granted"
aim = "holder-expiry"
)";

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
