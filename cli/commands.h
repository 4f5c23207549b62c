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
  // Every run passed, but the sweep did not prove what it claims: a declared mark stayed under its
  // floor, or a fault kind that could act never did (reports/claims.h).
  kExitUnproven = 6,
  // Ctrl-C (SIGINT) ended a real run or a sweep; a sweep ended by SIGTERM exits 143 (128 + 15),
  // each after writing its reports.
  kExitInterrupted = 130,
};

struct RunArgs {
  std::string scenario;  // exactly one of scenario and spec
  std::string spec;      // a TOML spec file (docs/specs.md), registered before the run
  std::string seed;
  std::string strategy = "random";
  bool json = false;
  std::string trace;       // "" for none
  std::string replay_out;  // "" for fencesim-replay-<scenario>-<seed>.json
  std::string sink_double;
  std::string html;      // "" for none: the run's timeline page
  std::string perfetto;  // "" for none: the run as a Chrome trace-event file
  std::string branch;    // "" for none: MARK:EVENT:N, a sweep's branch (cli/sweep_branch.h)
};

struct CheckSpecArgs {
  std::vector<std::string> files;
};

struct ReplayArgs {
  std::string file;
  bool json = false;
  std::string trace;
  std::string html;      // "" for none
  std::string perfetto;  // "" for none
};

struct DeterminismArgs {
  std::string scenario;
  std::string seeds;
  std::string strategy = "random";
};

// `fencesim sweep` (cli/sweep_*.cpp; the output folder is described in docs/reports.md).
struct SweepArgs {
  std::vector<std::string> scenarios;    // with specs empty too: every registered scenario
  std::vector<std::string> specs;        // TOML scenario specs to register and sweep
  // TOML specs registered beside the built-in scenarios: swept with them when no --scenario or
  // --spec narrows the sweep (the main job's specs/*.toml).
  std::vector<std::string> with_specs;
  std::string seeds;                     // "A..B"; exactly one of seeds and budget
  std::string budget;                    // a duration: "90s", "2m", "1h"
  std::string jobs;                      // worker processes; "" for one per core
  std::string shard;                     // "I/N"; "" for the whole sweep
  std::string strategy = "drawn";        // drawn, random, pct, pct-dN or both
  std::uint64_t determinism_every = 10;  // every Kth seed, when it passes, runs again
  std::string out = "fencesim-out";
  std::string corpus;  // "" for none: folder to keep the failures' (shrunk) replay files in
  std::string run_timeout = "60s";     // real time a run (or a failure's shrinking) may take
  std::string progress_every = "10s";  // progress line period when stdout is not a terminal
  std::uint64_t draw_limit = 5;  // failures shrunk and drawn per (scenario, failure signature)
  std::uint64_t stop_after_failures = 0;  // 0: run everything; N: hand out no new seed after N
  std::string sink_double;
  std::string known;            // "" for none: a corpus or an earlier output (cli/sweep_known.h)
  std::string fail_on = "any";  // "any" failure fails the sweep, or only "new" groups
  std::string branch_at;        // "" for none: MARK[,MARK...] to branch at (cli/sweep_branch.h)
  std::string branches;         // branches per hit; "" for the default (8) with --branch-at
  std::string resume;  // "" for none: an interrupted sweep's folder to continue (cli/sweep_resume.h)
};

// `fencesim bench` (cli/bench_command.cpp; docs/benchmarks.md).
struct BenchArgs {
  std::string scenario = "nightly-mix";
  std::string seeds = "1..40";       // run under each strategy
  std::string switches = "2000000";  // per switch measurement
};

// `fencesim shrink FILE` (cli/shrink_command.cpp).
struct ShrinkArgs {
  std::string file;
  std::string out;               // "" for FILE with .shrunk.json
  std::string max_runs = "500";  // worlds the shrinking may run
};

// `fencesim corpus run DIR` (cli/corpus_command.cpp).
struct CorpusArgs {
  std::string dir;
  bool json = false;
};

// `fencesim merge` (cli/merge_command.cpp).
struct MergeArgs {
  std::string out;
  std::vector<std::string> shards;  // the shards' output folders
  std::string known;                // "" for none: added to what the shards knew
  std::string fail_on = "any";
};

// `fencesim real` (cli/real_command.cpp; real/coordinator.h).
struct RealArgs {
  std::string scenario;
  std::string seed;
  std::string store = "sqlite";
  std::string postgres;  // "" for $FENCESIM_POSTGRES
  std::string time_scale = "0.01";
  std::string json_file;  // "" for none
  std::string html;       // "" for none
  std::string trace;      // "" for none: every event of the merged history, one a line
  std::string sink_double;
  double wall_limit_seconds = 0;
};

// The hidden worker of a real run: one instance process (real/worker.h).
struct RealWorkerArgs {
  std::string folder;
  std::string scenario;
  std::string seed;
  std::string node;
  int incarnation = 1;
  std::int64_t clock_start_ns = 0;
  std::string time_scale;
  std::string store = "sqlite";
  std::string postgres;
  std::string postgres_schema;
  std::string sink_double;
  int control_fd = -1;
  std::string fired;
};

// `fencesim explore` (cli/explore_command.cpp; docs/explore.md).
struct ExploreArgs {
  std::string scenario;
  std::string seed = "1";
  std::string bound = "2";  // delays per schedule
  std::string max_schedules = "100000";
  bool no_reduction = false;  // explore only without the partial-order reduction
  std::string sink_double;
  std::string out = "fencesim-explore";  // failing schedules' replay files
  std::uint64_t keep = 5;                // replay files written at most
};

int list_command(const scenarios::ScenarioRegistry& registry, std::ostream& out);
// Checks each spec without running it: all its errors (exit 2), or what it composes (exit 0).
int check_spec_command(const scenarios::ScenarioRegistry& registry, const CheckSpecArgs& args,
                       std::ostream& out, std::ostream& err);
// Registers args.spec in `registry` when given.
int run_command(scenarios::ScenarioRegistry& registry, const RunArgs& args, std::ostream& out,
                std::ostream& err);
int replay_command(const scenarios::ScenarioRegistry& registry, const ReplayArgs& args,
                   std::ostream& out, std::ostream& err);
int sweep_command(const scenarios::ScenarioRegistry& registry, const SweepArgs& args,
                  std::ostream& out, std::ostream& err);
// `registry` runs the corpus files of --known that carry no signature.
int merge_command(const scenarios::ScenarioRegistry& registry, const MergeArgs& args,
                  std::ostream& out, std::ostream& err);
int shrink_command(const scenarios::ScenarioRegistry& registry, const ShrinkArgs& args,
                   std::ostream& out, std::ostream& err);
int corpus_command(const scenarios::ScenarioRegistry& registry, const CorpusArgs& args,
                   std::ostream& out, std::ostream& err);
int real_command(const scenarios::ScenarioRegistry& registry, const RealArgs& args,
                 std::ostream& out, std::ostream& err);
int real_worker_command(const RealWorkerArgs& args);
// What a real run's reports say about it: not replayable, timing real.
std::string real_run_note();
int explore_command(const scenarios::ScenarioRegistry& registry, const ExploreArgs& args,
                    std::ostream& out, std::ostream& err);
int bench_command(const scenarios::ScenarioRegistry& registry, const BenchArgs& args,
                  std::ostream& out, std::ostream& err);
int determinism_command(const scenarios::ScenarioRegistry& registry, const DeterminismArgs& args,
                        std::ostream& out, std::ostream& err);

}  // namespace fencesim::cli
