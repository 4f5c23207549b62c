#include "cli/sweep_plan.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <set>

#include "cli/execute.h"
#include "cli/parse.h"
#include "cli/sweep_branch.h"
#include "reports/replay_file.h"

namespace fencesim::cli {

namespace {

constexpr std::uint64_t kMaxDurationMs = 7ULL * 24 * 3600 * 1000;  // a week: beyond is a typo
constexpr unsigned kMaxJobs = 512;

bool all_digits(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

std::uint64_t unit_ms(std::string_view unit) {
  if (unit == "ms") return 1;
  if (unit == "s") return 1000;
  if (unit == "m") return 60 * 1000;
  if (unit == "h") return 3600 * 1000;
  return 0;
}

}  // namespace

std::uint64_t parse_duration_ms(std::string_view option, std::string_view text) {
  const auto bad = [&] {
    return UsageError(fmt::format(
        "{}: expected a duration such as 90s, 2m, 1h30m or 500ms, got '{}'", option, text));
  };
  std::uint64_t total = 0;
  std::string_view rest = text;
  if (rest.empty()) throw bad();
  while (!rest.empty()) {
    const std::size_t digits = rest.find_first_not_of("0123456789");
    if (digits == 0 || digits == std::string_view::npos) throw bad();
    const std::size_t unit_end = rest.find_first_of("0123456789", digits);
    const std::uint64_t per = unit_ms(rest.substr(digits, unit_end - digits));
    if (per == 0) throw bad();
    std::uint64_t amount = 0;
    const auto [end, error] = std::from_chars(rest.data(), rest.data() + digits, amount);
    if (error != std::errc{} || amount > kMaxDurationMs / per) {
      throw UsageError(fmt::format("{}: '{}' is longer than a week", option, text));
    }
    total += amount * per;
    if (total > kMaxDurationMs) {
      throw UsageError(fmt::format("{}: '{}' is longer than a week", option, text));
    }
    rest = unit_end == std::string_view::npos ? std::string_view() : rest.substr(unit_end);
  }
  if (total == 0) throw UsageError(fmt::format("{}: '{}' must be longer than zero", option, text));
  return total;
}

Shard parse_shard(std::string_view option, std::string_view text) {
  const std::size_t slash = text.find('/');
  const auto bad = [&] {
    return UsageError(fmt::format("{}: expected I/N with 0 <= I < N, got '{}'", option, text));
  };
  if (slash == std::string_view::npos) throw bad();
  const std::string_view index_text = text.substr(0, slash);
  const std::string_view count_text = text.substr(slash + 1);
  if (!all_digits(index_text) || !all_digits(count_text)) throw bad();
  const Shard shard{parse_seed(option, index_text), parse_seed(option, count_text)};
  if (shard.count == 0) {
    throw UsageError(fmt::format("{}: N must be at least 1, got '{}'", option, text));
  }
  if (shard.index >= shard.count) {
    throw UsageError(fmt::format("{}: I must be less than N (shards are numbered from 0), got '{}'",
                                 option, text));
  }
  return shard;
}

namespace {

std::vector<std::string> strategy_names(const std::string& text) {
  if (text == "both") return {"random", "pct"};
  if (text == kDrawnStrategy) return {std::string(kDrawnStrategy)};
  if (!reports::strategy_from_name(text)) {
    throw UsageError(fmt::format(
        "--strategy: unknown strategy '{}' (expected drawn, random, pct, pct-dN or both)", text));
  }
  return {text};
}

std::vector<reports::SweptScenario> swept_scenarios(const scenarios::ScenarioRegistry& registry,
                                                    const std::vector<std::string>& names) {
  std::vector<reports::SweptScenario> swept;
  std::set<std::string> seen;
  for (const std::string& name : names) {
    check_scenario(registry, name);
    if (!seen.insert(name).second) {
      throw UsageError(fmt::format("--scenario: '{}' is given twice", name));
    }
    const scenarios::Scenario& scenario = *registry.find(name);
    swept.push_back(reports::SweptScenario{name, scenario.description, scenario.marks});
  }
  return swept;
}

unsigned default_jobs() {
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  return cores > 0 ? static_cast<unsigned>(std::min<long>(cores, kMaxJobs)) : 1;
}

void plan_seeds(const SweepArgs& args, reports::SweepConfig& config) {
  if (!args.seeds.empty() && !args.budget.empty()) {
    throw UsageError("--seeds and --budget: give one of them, not both");
  }
  if (args.seeds.empty() && args.budget.empty()) {
    throw UsageError("give the seeds to run: --seeds A..B or --budget DURATION (e.g. 2m)");
  }
  if (!args.seeds.empty()) {
    const SeedRange range = parse_seed_range("--seeds", args.seeds);
    config.seeds_first = range.first;
    config.seeds_last = range.last;
  } else {
    config.budget_ms = parse_duration_ms("--budget", args.budget);
  }
}

}  // namespace

SweepPlan plan_sweep(const scenarios::ScenarioRegistry& registry, const SweepArgs& args,
                     const std::vector<std::string>& spec_scenarios) {
  SweepPlan plan;
  std::vector<std::string> names = args.scenarios;
  for (const std::string& name : spec_scenarios) names.push_back(name);
  if (names.empty()) {
    // Every registered scenario, the small worlds of `fencesim explore` too (their fixed latency
    // makes instants no other world makes: docs/explore.md).
    for (const scenarios::Scenario* scenario : registry.all()) names.push_back(scenario->name);
  }
  plan.config.scenarios = swept_scenarios(registry, names);
  plan_seeds(args, plan.config);
  plan.config.strategies = strategy_names(args.strategy);
  if (args.determinism_every == 0) throw UsageError("--determinism-every: must be at least 1");
  plan.config.determinism_every = args.determinism_every;
  if (!args.sink_double.empty() && args.sink_double != "accept-stale" &&
      args.sink_double != "non-atomic") {
    throw UsageError(
        fmt::format("--sink-double: unknown sink double '{}' (known: accept-stale, non-atomic)",
                    args.sink_double));
  }
  plan.config.sink_double = args.sink_double;
  if (!args.shard.empty()) plan.shard = parse_shard("--shard", args.shard);
  if (args.jobs.empty()) {
    plan.jobs = default_jobs();
  } else {
    const std::uint64_t jobs = parse_seed("--jobs", args.jobs);
    if (jobs == 0 || jobs > kMaxJobs) {
      throw UsageError(fmt::format("--jobs: expected 1..{}, got '{}'", kMaxJobs, args.jobs));
    }
    plan.jobs = static_cast<unsigned>(jobs);
  }
  plan.run_timeout_seconds =
      static_cast<double>(parse_duration_ms("--run-timeout", args.run_timeout)) / 1e3;
  plan.progress_every_seconds =
      static_cast<double>(parse_duration_ms("--progress-every", args.progress_every)) / 1e3;
  plan.draw_limit = args.draw_limit;
  plan.stop_after_failures = args.stop_after_failures;
  if (args.out.empty()) throw UsageError("--out: the folder name is empty");
  plan.out = args.out;
  plan.corpus = args.corpus;
  if (!args.branch_at.empty()) {
    plan.config.branch_marks = parse_branch_marks(registry, args.branch_at);
    plan.config.branches = args.branches.empty() ? kDefaultBranches : parse_branches(args.branches);
  } else if (!args.branches.empty()) {
    throw UsageError("--branches: give --branch-at too (the marks to branch at)");
  }
  return plan;
}

std::string task_strategy(const reports::SweepConfig& config, const SweepTask& task) {
  const std::string& name = config.strategies.at(task.strategy);
  return name == kDrawnStrategy ? reports::drawn_strategy(task.seed) : name;
}

std::uint64_t first_seed(const reports::SweepConfig& config) {
  return config.seeds_first.value_or(1);
}

bool rerun_for_determinism(const reports::SweepConfig& config, std::uint64_t seed) {
  return (seed - first_seed(config)) % config.determinism_every == 0;
}

TaskSource::TaskSource(const SweepPlan& plan)
    : plan_(&plan),
      scenarios_(plan.config.scenarios.size()),
      strategies_(plan.config.strategies.size()),
      step_(plan.shard.count),
      last_(plan.config.seeds_last) {
  const std::uint64_t first = first_seed(plan.config);
  const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  const std::uint64_t last = last_.value_or(max);
  // The shard's first seed is `index` seeds past the range's first, if the range reaches it.
  exhausted_ = scenarios_ == 0 || strategies_ == 0 || last - first < plan.shard.index;
  current_.seed = exhausted_ ? 0 : first + plan.shard.index;
  if (last_) {
    const std::uint64_t span = last - first;  // seeds after the first, up to the last
    const std::uint64_t seeds =
        span < plan.shard.index ? 0 : (span - plan.shard.index) / plan.shard.count + 1;
    const std::uint64_t per_seed = scenarios_ * strategies_;
    total_ = per_seed == 0 ? 0 : seeds > max / per_seed ? max : seeds * per_seed;
    // Every run made already is one of the plan's (the resumed sweep had the same plan).
    *total_ -= std::min<std::uint64_t>(*total_, plan.done.size());
  }
  while (!exhausted_ && made_already(current_)) advance();
}

bool TaskSource::made_already(const SweepTask& task) const {
  if (plan_->done.empty()) return false;
  return plan_->done.contains(std::make_tuple(plan_->config.scenarios.at(task.scenario).name,
                                              task_strategy(plan_->config, task), task.seed));
}

void TaskSource::advance() {
  if (++current_.strategy < strategies_) return;
  current_.strategy = 0;
  if (++current_.scenario < scenarios_) return;
  current_.scenario = 0;
  const std::uint64_t last = last_.value_or(std::numeric_limits<std::uint64_t>::max());
  if (last - current_.seed < step_) {
    exhausted_ = true;
  } else {
    current_.seed += step_;
  }
}

SweepTask TaskSource::next() {
  const SweepTask task = current_;
  advance();
  while (!exhausted_ && made_already(current_)) advance();
  return task;
}

}  // namespace fencesim::cli
