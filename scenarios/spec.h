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
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/observer.h"
#include "scenarios/scenario.h"

namespace fencesim::scenarios {

// A spec that cannot be used. what() is one line: "FILE:LINE: KEY: what is wrong", followed by
// "(and N more errors: ...)" when the spec has more than one; all() holds each, one line apiece,
// in the order of their lines (`fencesim check-spec` prints them all).
class SpecError : public std::invalid_argument {
 public:
  explicit SpecError(const std::string& what, std::uint32_t line = 0,
                     std::vector<std::string> all = {})
      : std::invalid_argument(what), line_(line), all_(std::move(all)) {}
  std::uint32_t line() const { return line_; }
  // Every error; a single error's list is just what().
  std::vector<std::string> all() const {
    return all_.empty() ? std::vector<std::string>{what()} : all_;
  }

 private:
  std::uint32_t line_ = 0;
  std::vector<std::string> all_;
};

// What a spec composes, for `fencesim check-spec` to show without running it.
struct SpecOutline {
  std::string name;
  std::string description;
  std::string workload;         // the registered scenario it runs, or "its own topology"
  std::string workload_faults;  // keep or drop
  std::vector<std::string> nodes;   // "instance-1 (instance)", in node order
  std::vector<std::string> faults;  // each generator with its ranges (spec::describe)
  std::vector<MarkFloor> marks;
  std::int64_t safety_phase_ns = 0;
  std::int64_t liveness_budget_ns = 0;
};

// Reads, checks and registers the spec at `path`; returns the name of the scenario it registered.
// Throws SpecError (a missing or unreadable file too), holding every error of the spec. With
// `outline`, also says what the spec composes (a spec already registered is outlined again).
std::string register_spec_file(ScenarioRegistry& registry, const std::string& path,
                               SpecOutline* outline = nullptr);

// The same for a spec's text (a replay file carries it); `source` names it in errors.
std::string register_spec_text(ScenarioRegistry& registry, const std::string& text,
                               const std::string& source, SpecOutline* outline = nullptr);

// Inverse of runtime::to_string(EventKind); nullopt for an unknown name.
std::optional<runtime::EventKind> event_kind_from_name(std::string_view name);

}  // namespace fencesim::scenarios
