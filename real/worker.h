#pragma once
// One instance process of a real run (the hidden `fencesim real-worker` subcommand, started by the
// coordinator, real/coordinator.h): builds the scenario's world from the same seed (the same
// workflows, topology and fault plan), runs one incarnation of one instance of the real runtime on
// the real stores, appends every event to its own file, and fires the plan's triggers at their
// protocol moments. It runs until the coordinator kills it.
#include <cstdint>
#include <string>
#include <vector>

namespace fencesim::real {

inline constexpr std::int64_t kAwaitStart = -1;

// The handshake's files in the run's folder: a parked process's "ready" and the coordinator's "go"
// (which holds the run's CLOCK_MONOTONIC start, written whole by a rename).
std::string ready_file(const std::string& folder, std::size_t node);
std::string go_file(const std::string& folder);

struct WorkerArgs {
  std::string folder;  // the run's folder: store file, order lock, event files
  std::string scenario;
  std::uint64_t seed = 1;
  std::string node;  // the instance's name
  int incarnation = 1;
  // CLOCK_MONOTONIC at the run's start; kAwaitStart: the run has not started yet, the process
  // opens its stores, says it is ready and parks until the coordinator's go (real/coordinator.cpp).
  std::int64_t clock_start_ns = 0;
  double scale = 0.01;
  std::string store = "sqlite";
  std::string postgres;         // the server's address, for --store postgres
  std::string postgres_schema;  // the run's own schema on it
  std::string sink_double;  // "" or "accept-stale"
  int control_fd = -1;      // where trigger faults are announced to the coordinator
  std::vector<int> fired;   // fault indices an earlier incarnation fired
};

// Returns the process's exit code; runs until killed.
int worker_main(const WorkerArgs& args);

// The lines a worker writes on its control pipe: "<pid> <fault index>\n".
std::string control_line(int pid, std::size_t fault_index);

}  // namespace fencesim::real
