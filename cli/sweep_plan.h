#pragma once
// What a sweep will run: its options checked (every error a UsageError naming the option), and
// the order its runs are handed out: for each seed of the shard, every scenario, every strategy,
// so that a budget cut anywhere gives every scenario the same seeds.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "cli/commands.h"
#include "reports/sweep_config.h"
#include "sim/scheduler.h"

namespace fencesim::cli {

// "90s", "2m", "1h", "1h30m", "500ms": whole numbers with units ms, s, m, h; more than zero.
std::uint64_t parse_duration_ms(std::string_view option, std::string_view text);

struct Shard {
  std::uint64_t index = 0;
  std::uint64_t count = 1;
};
// "I/N" with N >= 1 and 0 <= I < N.
Shard parse_shard(std::string_view option, std::string_view text);

// The sweep's default: each seed runs once, under a strategy (and PCT depth) drawn from the seed
// (reports::drawn_strategy), so that no two runs of a sweep repeat one (seed, world) pair.
inline constexpr std::string_view kDrawnStrategy = "drawn";

struct SweepPlan {
  // config.strategies: "drawn", or named strategies; config.branch_marks and config.branches:
  // --branch-at and --branches (cli/sweep_branch.h), empty and 0 for a sweep that does not branch.
  reports::SweepConfig config;
  Shard shard;
  unsigned jobs = 1;
  double run_timeout_seconds = 60;
  double progress_every_seconds = 10;
  // The first this many failures of each (scenario, first invariant or status) are shrunk and
  // drawn; the others keep their replay file only.
  std::uint64_t draw_limit = 5;
  // --stop-after-failures: 0 runs the whole plan; N stops handing out seeds after N failures (a
  // quick verdict, e.g. whether a planted bug is caught at all, without spending the budget).
  std::uint64_t stop_after_failures = 0;
  std::string out;
  std::string corpus;  // "" for none
  // --resume (cli/sweep_interrupt.h): the runs the interrupted sweep made, as (scenario,
  // strategy, seed), which this one skips; and what was left of its budget, which this one spends.
  std::set<std::tuple<std::string, std::string, std::uint64_t>> done;
  std::optional<std::uint64_t> budget_left_ms;
  bool budgeted() const { return config.budget_ms.has_value(); }
  // The real time this process may spend: the budget, or what a resumed sweep had left of it.
  double budget_seconds() const {
    return static_cast<double>(budget_left_ms.value_or(config.budget_ms.value_or(0))) / 1e3;
  }
};

// Checks the arguments against the registry, which already holds the --spec scenarios (named in
// `spec_scenarios`). With neither --scenario nor --spec, the plan runs every registered scenario.
SweepPlan plan_sweep(const scenarios::ScenarioRegistry& registry, const SweepArgs& args,
                     const std::vector<std::string>& spec_scenarios);

// One run to make.
struct SweepTask {
  std::size_t scenario = 0;  // index into SweepPlan::config.scenarios
  std::size_t strategy = 0;  // index into SweepPlan::config.strategies
  std::uint64_t seed = 0;
};

// Hands out a plan's runs in order, skipping those a resumed sweep made already (SweepPlan::done).
class TaskSource {
 public:
  explicit TaskSource(const SweepPlan& plan);
  bool exhausted() const { return exhausted_; }
  // REQUIRES: !exhausted(). The run next() hands out, without handing it out.
  const SweepTask& peek() const { return current_; }
  // REQUIRES: !exhausted().
  SweepTask next();
  // How many runs the whole plan has, less those made already; nullopt for a budget.
  std::optional<std::uint64_t> total() const { return total_; }

 private:
  void advance();
  bool made_already(const SweepTask& task) const;

  const SweepPlan* plan_;
  std::size_t scenarios_;
  std::size_t strategies_;
  std::uint64_t step_;                 // the shard count: seeds of a shard are this far apart
  std::optional<std::uint64_t> last_;  // the range's last seed; none for a budget
  SweepTask current_;
  bool exhausted_ = false;
  std::optional<std::uint64_t> total_;
};

// The strategy the task runs under, by name (reports::named_strategy): its own, or the one its seed
// draws.
std::string task_strategy(const reports::SweepConfig& config, const SweepTask& task);

// Whether a passing run of `seed` is run again for determinism: every Kth seed counted from the
// range's first seed (1 for a budget), whatever the shard.
bool rerun_for_determinism(const reports::SweepConfig& config, std::uint64_t seed);

// The first seed: the range's, or 1 for a budget.
std::uint64_t first_seed(const reports::SweepConfig& config);

}  // namespace fencesim::cli
