#pragma once
// Runs one world for a command: checks the scenario's name, measures wall time (the CLI's only read
// of real time; never inside the world), writes the trace, and turns an exception escaping the
// harness into a HarnessFailure that names the scenario and seed.
#include <functional>
#include <stdexcept>
#include <string>

#include "properties/run.h"

namespace fencesim::cli {

// An exception escaped the harness: exit 5.
class HarnessFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TimedRun {
  properties::RunReport report;
  double wall_seconds = 0;
  // The thread's CPU time for the run: what a sweep's "per CPU-second" figures divide by, since
  // wall time on a shared machine counts other processes' turns too.
  double cpu_seconds = 0;
};

using Inspect = std::function<void(const sim::World&, const properties::RunReport&)>;

// Throws UsageError for an unknown scenario (with a hint) or a trace file that cannot be written.
void check_scenario(const scenarios::ScenarioRegistry& registry, const std::string& name);

// `trace_path` "" for no trace; otherwise every history event, described, one a line.
TimedRun execute(const scenarios::ScenarioRegistry& registry, const properties::RunRequest& request,
                 const std::string& trace_path, const Inspect& inspect = nullptr);

}  // namespace fencesim::cli
