#pragma once
// The fencesim subcommands. Each takes its raw option values (parsed and checked here, so that
// every error names the option), writes to `out` and `err`, and returns the process's exit code.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "scenarios/scenario.h"

namespace fencesim::cli {

// The exit codes CI reads.
enum ExitCode : int {
  kExitPass = 0,
  kExitViolation = 1,
  kExitUsage = 2,
  kExitLiveness = 3,
  kExitNondeterminism = 4,
  kExitHarnessError = 5,
};

struct RunArgs {
  std::string scenario;
  std::string seed;
  std::string strategy = "random";
  bool json = false;
  std::string trace;       // "" for none
  std::string replay_out;  // "" for fencesim-replay-<scenario>-<seed>.json
  std::string sink_double;
};

struct ReplayArgs {
  std::string file;
  bool json = false;
  std::string trace;
};

struct DeterminismArgs {
  std::string scenario;
  std::string seeds;
  std::string strategy = "random";
};

struct SweepArgs {
  std::vector<std::string> scenarios;  // empty: every registered scenario
  std::string seeds = "1..100";
  std::string strategy = "both";         // random, pct or both
  std::uint64_t determinism_every = 10;  // every Nth passing seed runs twice
  std::string out = "fencesim-out";
};

int list_command(const scenarios::ScenarioRegistry& registry, std::ostream& out);
int run_command(const scenarios::ScenarioRegistry& registry, const RunArgs& args, std::ostream& out,
                std::ostream& err);
int replay_command(const scenarios::ScenarioRegistry& registry, const ReplayArgs& args,
                   std::ostream& out, std::ostream& err);
int sweep_command(const scenarios::ScenarioRegistry& registry, const SweepArgs& args,
                  std::ostream& out, std::ostream& err);
int determinism_command(const scenarios::ScenarioRegistry& registry, const DeterminismArgs& args,
                        std::ostream& out, std::ostream& err);

}  // namespace fencesim::cli
