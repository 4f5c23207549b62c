#pragma once
// Scenario specs in TOML (docs/specs.md): a spec composes a registered scenario (its topology and
// workload, and its own faults kept or dropped) with fault generators and world options, and
// registers the result as a new scenario, as FoundationDB's test specs compose workloads.
//
//   name = "kleppmann-under-drift"
//   workload = "kleppmann-fencing"
//   [options]
//   drift_bound_ppm = 200
//   [[fault]]
//   kind = "clock-drift"
//   node = "every-instance"
//   at = ["0s", "10s"]
//   amount = [-150, 150]
//
// The generators draw from the run's "spec-faults" stream, so a spec and a seed give one run. A
// spec is checked whole when it is registered: unknown keys, bad values and unknown nodes are
// errors naming the file, the line and the key.
#include <optional>
#include <stdexcept>
#include <string>

#include "runtime/observer.h"
#include "scenarios/scenario.h"

namespace fencesim::scenarios {

// A spec that cannot be used. what() is one line: "FILE:LINE: KEY: what is wrong".
class SpecError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Reads, checks and registers the spec at `path`; returns the name of the scenario it registered.
// Throws SpecError (a missing or unreadable file too).
std::string register_spec_file(ScenarioRegistry& registry, const std::string& path);

// The same for a spec's text (a replay file carries it); `source` names it in errors.
std::string register_spec_text(ScenarioRegistry& registry, const std::string& text,
                               const std::string& source);

// Inverse of runtime::to_string(EventKind); nullopt for an unknown name.
std::optional<runtime::EventKind> event_kind_from_name(std::string_view name);

}  // namespace fencesim::scenarios
