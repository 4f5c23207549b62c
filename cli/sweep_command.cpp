// `fencesim sweep`: many seeds of one or more scenarios in this process, one after another, with
// a share of seeds run twice for determinism. Prints each failure's replay command as it is found,
// keeps its replay file in the output folder, and ends with a summary per scenario (seeds,
// failures, marks reached and the scenario's marks never reached).
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <filesystem>
#include <map>
#include <memory>
#include <ostream>

#include "cli/commands.h"
#include "cli/execute.h"
#include "cli/parse.h"
#include "reports/replay_file.h"
#include "sim/stack_pool.h"

namespace fencesim::cli {

namespace {

struct ScenarioTally {
  std::uint64_t runs = 0;
  std::uint64_t failures = 0;
  std::uint64_t nondeterministic = 0;
  double wall_seconds = 0;
  double virtual_seconds = 0;
  std::map<std::string, std::uint64_t> marks;
};

// The worst outcome decides the exit code: harness error, then nondeterminism, then violation,
// then liveness.
int worse(int a, int b) {
  auto rank = [](int code) {
    switch (code) {
      case kExitHarnessError:
        return 4;
      case kExitNondeterminism:
        return 3;
      case kExitViolation:
        return 2;
      case kExitLiveness:
        return 1;
      default:
        return 0;
    }
  };
  return rank(a) >= rank(b) ? a : b;
}

std::vector<sim::Strategy> strategies_of(const std::string& name) {
  if (name == "both") return {sim::Strategy::kRandomWalk, sim::Strategy::kPct};
  return {parse_strategy("--strategy", name)};
}

}  // namespace

int sweep_command(const scenarios::ScenarioRegistry& registry, const SweepArgs& args,
                  std::ostream& out, std::ostream& err) {
  std::vector<std::string> names = args.scenarios;
  if (names.empty()) {
    for (const scenarios::Scenario* scenario : registry.all()) names.push_back(scenario->name);
  }
  for (const std::string& name : names) check_scenario(registry, name);
  const SeedRange seeds = parse_seed_range("--seeds", args.seeds);
  const std::vector<sim::Strategy> strategies = strategies_of(args.strategy);
  if (args.determinism_every == 0) throw UsageError("--determinism-every: must be at least 1");
  std::error_code created;
  std::filesystem::create_directories(args.out, created);
  if (created) {
    throw UsageError(fmt::format("--out: cannot create '{}': {}", args.out, created.message()));
  }

  auto pool = std::make_shared<sim::StackPool>();
  std::map<std::string, ScenarioTally> tallies;
  int exit = kExitPass;
  for (const std::string& name : names) {
    ScenarioTally& tally = tallies[name];
    for (sim::Strategy strategy : strategies) {
      for (std::uint64_t seed = seeds.first;; ++seed) {
        properties::RunRequest request;
        request.scenario = name;
        request.seed = seed;
        request.strategy = strategy;
        request.stack_pool = pool;
        const TimedRun run = execute(registry, request, "");
        ++tally.runs;
        tally.wall_seconds += run.wall_seconds;
        tally.virtual_seconds += static_cast<double>(run.report.virtual_ns) / 1e9;
        for (const auto& [mark, count] : run.report.marks) tally.marks[mark] += count;
        if (run.report.status != properties::RunStatus::kPass) {
          ++tally.failures;
          exit = worse(exit, properties::exit_code(run.report.status));
          const std::string path = fmt::format("{}/fencesim-replay-{}-{}-{}.json", args.out, name,
                                               seed, reports::strategy_name(strategy));
          reports::write_replay_file(path, reports::make_replay_file(run.report));
          fmt::print(out, "fencesim replay {}\n", path);
          fmt::print(out, "  {} seed {} {}: {}{}\n", name, seed, reports::strategy_name(strategy),
                     properties::to_string(run.report.status),
                     run.report.violations.empty()
                         ? " " + run.report.detail
                         : " " + run.report.violations.front().invariant + ": " +
                               run.report.violations.front().message);
        } else if ((seed - seeds.first) % args.determinism_every == 0) {
          const TimedRun again = execute(registry, request, "");
          if (again.report.history_hash != run.report.history_hash) {
            ++tally.nondeterministic;
            exit = worse(exit, kExitNondeterminism);
            fmt::print(out,
                       "nondeterminism: {} seed {} {}: hash {} then {} (see fencesim "
                       "check-determinism --scenario {} --seeds {}..{})\n",
                       name, seed, reports::strategy_name(strategy),
                       reports::hash_hex(run.report.history_hash),
                       reports::hash_hex(again.report.history_hash), name, seed, seed);
          }
        }
        if (seed == seeds.last) break;
      }
    }
    fmt::print(out, "{}: {} runs, {} failures, {} nondeterministic, {:.0f}x virtual/wall\n", name,
               tally.runs, tally.failures, tally.nondeterministic,
               tally.wall_seconds > 0 ? tally.virtual_seconds / tally.wall_seconds : 0.0);
    std::string reached;
    for (const auto& [mark, count] : tally.marks) reached += fmt::format(" {}={}", mark, count);
    fmt::print(out, "  marks:{}\n", reached.empty() ? " none" : reached);
    for (const std::string& mark : registry.find(name)->marks) {
      if (!tally.marks.contains(mark)) {
        fmt::print(out, "  mark never reached: {}\n", mark);
      }
    }
  }
  std::uint64_t runs = 0, failures = 0;
  for (const auto& [name, tally] : tallies) {
    runs += tally.runs;
    failures += tally.failures + tally.nondeterministic;
  }
  fmt::print(out, "sweep: {} passed, {} failed\n", runs - failures, failures);
  (void)err;
  return exit;
}

}  // namespace fencesim::cli
