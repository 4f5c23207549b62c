#pragma once
// A real run of a scenario (`fencesim real`): the same scenario definitions as a simulated run,
// with each instance a real OS process (the hidden `fencesim real-worker` subcommand), real clocks
// scaled by `scale` (real seconds per scenario second), the stores in one SQLite file in a
// temporary folder (or on a PostgreSQL server), and the fault plan drawn from the seed played for
// real: a stall, stop or migration is a SIGSTOP and a later SIGCONT of the instance's process, a
// crash a SIGKILL and a restart. The processes' events are merged by the shared run clock (and
// each process's sequence) into one history that the same invariants and marks judge.
//
// A real run is not replayable: its seed fixes the fault plan, not the interleaving.
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "properties/run.h"

namespace fencesim::real {

struct RealRequest {
  std::string scenario;
  std::uint64_t seed = 1;
  std::string store = "sqlite";  // sqlite or postgres
  std::string postgres;          // connection string, for postgres
  double scale = 0.01;
  std::string sink_double;       // "" or "accept-stale"
  double wall_limit_seconds = 0;  // 0: twice the scaled phases plus 30 s
  std::string binary;             // the fencesim executable that runs the workers
};

struct RealRun {
  properties::RunReport report;
  double wall_seconds = 0;
  // Faults of the plan a real run cannot play (a stopped SQLite file, a trigger on another
  // process's link), each in words: the report lists them.
  std::vector<std::string> not_played;
  std::uint64_t processes = 0;  // instance processes started (restarts included)
};

// The run was interrupted (SIGINT, SIGTERM): every child was killed and reaped.
class Interrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws properties::UsageError for bad input, stores::StoreSetupError when the stores cannot be
// opened, Interrupted. `inspect` sees the judged world before it is destroyed.
RealRun run_real(const scenarios::ScenarioRegistry& registry, const RealRequest& request,
                 const std::function<void(const sim::World&, const properties::RunReport&)>&
                     inspect = nullptr);

}  // namespace fencesim::real
