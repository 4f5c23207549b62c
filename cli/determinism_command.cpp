// `fencesim check-determinism`: runs each seed twice in this process, the second time after other
// worlds have run on this thread and stack pool, and compares the history hashes. On a mismatch it
// shows the first event where the two histories diverge.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <map>
#include <memory>
#include <ostream>
#include <string>

#include "cli/commands.h"
#include "cli/divergence.h"
#include "cli/execute.h"
#include "cli/parse.h"
#include "cli/sweep_worker.h"
#include "reports/replay_file.h"
#include "sim/stack_pool.h"

namespace fencesim::cli {

namespace {

// What a run left behind, kept to locate a divergence.
struct Captured {
  std::vector<sim::HistoryEvent> events;
  std::vector<std::uint64_t> rolling;
  std::vector<std::string> node_names;
  properties::RunReport report;
};

Captured run_captured(const scenarios::ScenarioRegistry& registry,
                      const properties::RunRequest& request) {
  Captured captured;
  captured.report =
      execute(registry, request, "", [&](const sim::World& world, const properties::RunReport&) {
        captured.events = world.history().events();
        captured.rolling = world.history().rolling_hashes();
        captured.node_names = world.node_names();
      }).report;
  return captured;
}

std::string describe_at(const Captured& run, std::size_t index) {
  if (index >= run.events.size()) return "(the history ended)";
  return sim::describe(run.events[index], run.node_names);
}

// "violation (exactly-once, safe-yield)": the status and the invariants its violations name.
std::string verdict(const properties::RunReport& report) {
  std::string text(properties::to_string(report.status));
  for (std::size_t i = 0; i < report.violations.size(); ++i) {
    text += (i == 0 ? " (" : ", ") + report.violations[i].invariant;
  }
  return report.violations.empty() ? text : text + ")";
}

void print_divergence(std::ostream& out, const Captured& first, const Captured& second) {
  const properties::RunRequest& request = first.report.request;
  fmt::print(out, "nondeterminism: scenario {} seed {} strategy {}: history hash {} then {}\n",
             request.scenario, request.seed, reports::strategy_name(request),
             reports::hash_hex(first.report.history_hash),
             reports::hash_hex(second.report.history_hash));
  const std::optional<std::size_t> index = first_divergence(first.rolling, second.rolling);
  if (!index) {
    fmt::print(out, "the histories are equal; the verdicts differ: {} then {}\n",
               verdict(first.report), verdict(second.report));
    return;
  }
  fmt::print(out, "first diverging event: #{}\n", *index);
  fmt::print(out, "  first run:  {}\n", describe_at(first, *index));
  fmt::print(out, "  second run: {}\n", describe_at(second, *index));
}

}  // namespace

int determinism_command(const scenarios::ScenarioRegistry& registry, const DeterminismArgs& args,
                        std::ostream& out, std::ostream& err) {
  check_scenario(registry, args.scenario);
  const SeedRange seeds = parse_seed_range("--seeds", args.seeds);
  properties::RunRequest request;
  request.scenario = args.scenario;
  set_strategy("--strategy", args.strategy, request);  // checked before the first run
  request.stack_pool = std::make_shared<sim::StackPool>();
  const std::optional<CrashHook> hook = crash_hook_from_environment();

  std::uint64_t failing = 0;
  // Counted as they run, not taken from the range: the line says how many seeds were checked.
  std::uint64_t checked = 0;
  // The strategy each checked seed ran under, by name, as its replay file names it: with
  // "drawn", what the seeds drew, so that a check stuck on one strategy says so.
  std::map<std::string, std::uint64_t> strategies;
  for (std::uint64_t seed = seeds.first;; ++seed) {
    request.seed = seed;
    set_strategy("--strategy", args.strategy, request);  // "drawn" draws per seed
    const Captured first = run_captured(registry, request);
    Captured second = run_captured(registry, request);
    // The test hook verdict-differs-on-second-run (docs/reports.md, "Test hook"): the second run
    // of the hook's seed finds a violation on the same history, as an oracle whose verdict hangs
    // on its process's state would.
    if (hook && hook->kind == "verdict-differs-on-second-run" && hook->seed == seed) {
      second.report.violations.push_back(properties::Violation{
          "test-hook", "FENCESIM_TEST_CRASH_KIND=verdict-differs-on-second-run", {}});
      second.report.status = properties::RunStatus::kViolation;
    }
    if (!properties::runs_agree(first.report, second.report)) {
      print_divergence(out, first, second);
      fmt::print(err, "fencesim: scenario {} seed {} is not deterministic\n", args.scenario, seed);
      return kExitNondeterminism;
    }
    ++checked;
    ++strategies[reports::strategy_name(request)];
    if (first.report.status != properties::RunStatus::kPass) ++failing;
    if (seed == seeds.last) break;
  }
  fmt::print(out, "{} seeds deterministic\n", checked);
  std::string under;
  for (const auto& [strategy, count] : strategies) {
    under += fmt::format("{}{} {}", under.empty() ? "" : ", ", strategy, count);
  }
  fmt::print(out, "strategies: {}\n", under);
  if (failing > 0) {
    fmt::print(out, "({} of them did not pass: see 'fencesim run --scenario {} --seed N')\n",
               failing, args.scenario);
  }
  return kExitPass;
}

}  // namespace fencesim::cli
