#pragma once
// The run a replay file asks for: one definition for `fencesim replay`, `fencesim corpus run` and
// `fencesim shrink`, so that the three run the same world. It is the file's request
// (reports::run_request: scenario, seed, strategy, sink double, plan, branch) against the registry
// with the file's spec registered, and, for a schedule `fencesim explore` found, its choice log
// driving the world (explore::ReplayChooser; docs/explore.md). Without the log the same plan would
// run under the seeded strategy: another schedule, another history, and a verdict on a run nobody
// recorded. `sweep --known` and `merge --known` run a corpus file without a signature through it
// too.
#include <cstdint>
#include <memory>
#include <string>

#include "cli/execute.h"
#include "properties/run.h"
#include "reports/replay_file.h"
#include "scenarios/scenario.h"

namespace fencesim::cli {

class ReplayRun {
 public:
  // Throws reports::ReplayFileError naming `path` when the file's spec does not register. A
  // scenario the registry lacks is left for execute() to report (check_scenario), as for any run.
  ReplayRun(const scenarios::ScenarioRegistry& registry, const reports::ReplayFile& file,
            const std::string& path);

  const properties::RunRequest& request() const { return request_; }
  // The registry the file's world is built from; its worlds follow the choice log, if any.
  const scenarios::ScenarioRegistry& registry() const { return registry_; }

  // Runs the file's world (cli::execute), each time from the start of its choice log.
  TimedRun execute(const std::string& trace_path, const Inspect& inspect = nullptr) const;
  // The same world, run as properties::run_scenario runs it: no scenario check, no clock, no trace,
  // and an exception out of the harness escapes as it was thrown (a --known corpus turns it into
  // the harness signature a sweep's worker would give it).
  properties::RunReport run(const Inspect& inspect) const;

 private:
  // Sets the chooser back to the start of the choice log (nothing without one).
  void rewind() const;
  struct Driver;
  // On the heap: the registry's worlds reach the chooser through a pointer into it, which must
  // stay put when a ReplayRun is moved (a corpus entry is returned by value).
  std::shared_ptr<Driver> driver_;
  scenarios::ScenarioRegistry registry_;
  properties::RunRequest request_;
};

}  // namespace fencesim::cli
