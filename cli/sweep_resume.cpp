#include "cli/sweep_resume.h"

#include <fmt/format.h>

#include <filesystem>
#include <string_view>
#include <tuple>

#include "cli/parse.h"
#include "cli/sweep_branch.h"
#include "cli/sweep_interrupt.h"
#include "cli/sweep_output.h"
#include "reports/replay_file.h"

namespace fencesim::cli {

namespace {

std::string_view scheme_name(sim::HistoryHashScheme scheme) {
  return scheme == sim::HistoryHashScheme::kNameBytes ? "names' bytes" : "names' hashes";
}

}  // namespace

InterruptedSweep read_interrupted_sweep(const std::string& dir) {
  if (!std::filesystem::is_directory(dir)) {
    throw UsageError(fmt::format("--resume: '{}' is not a folder", dir));
  }
  InterruptedSweep sweep;
  sweep.dir = dir;
  try {
    sweep.manifest = reports::read_sweep_manifest(dir + "/sweep.json");
  } catch (const reports::SweepFileError& error) {
    throw UsageError(fmt::format("--resume: {}", error.what()));
  }
  if (!sweep.manifest.interrupted) {
    throw UsageError(fmt::format(
        "--resume: '{}' holds a sweep that was not interrupted{}: nothing to continue", dir,
        sweep.manifest.completed ? "" : " (it is running, or died without its reports)"));
  }
  if (sweep.manifest.fencesim_version != reports::fencesim_version()) {
    throw UsageError(fmt::format(
        "--resume: '{}' was made by fencesim {}, this is {}: a sweep resumes only with its own "
        "version",
        dir, sweep.manifest.fencesim_version, reports::fencesim_version()));
  }
  // The same version of fencesim may have hashed another way: the scheme changed within one
  // version (session 26), and a sweep.json written before it was recorded reads as names' bytes.
  const sim::HistoryHashScheme scheme = sweep.manifest.configuration.history_hash_scheme;
  if (scheme != sim::kCurrentHistoryHashScheme) {
    throw UsageError(fmt::format(
        "--resume: the runs in '{}' hashed their histories another way (scheme {}, {}; this "
        "fencesim hashes by scheme {}, {}): resumed runs would not compare with them, so sweep "
        "again into a new folder",
        dir, static_cast<int>(scheme), scheme_name(scheme),
        static_cast<int>(sim::kCurrentHistoryHashScheme),
        scheme_name(sim::kCurrentHistoryHashScheme)));
  }
  // sweep.json is a file a person may edit: its branch count is held to the command line's bounds
  // (each hit forks that many processes).
  const std::uint64_t branches = sweep.manifest.configuration.branches;
  if (branches > kMaxBranches) {
    throw UsageError(fmt::format(
        "--resume: '{}/sweep.json' asks for {} branches a hit; a sweep makes 1..{} (--branches)",
        dir, branches, kMaxBranches));
  }
  try {
    sweep.records = reports::read_run_records(dir + "/runs.jsonl");
    sweep.times = reports::read_run_times(dir + "/run_times.jsonl");
  } catch (const reports::SweepFileError& error) {
    throw UsageError(fmt::format("--resume: {}", error.what()));
  }
  check_branching_recorded("--resume", dir, sweep.manifest.configuration, sweep.records);
  // The branch runs of a seed cut short: the resume runs the seed again, branches and all. (A
  // sweep interrupted by this fencesim has dropped them already; one by an older fencesim has not.)
  drop_branches_without_parent(sweep.records, sweep.times);
  return sweep;
}

SweepPlan plan_resumed(const scenarios::ScenarioRegistry& registry, const SweepArgs& args,
                       const InterruptedSweep& sweep) {
  const reports::SweepConfig& config = sweep.manifest.configuration;
  std::vector<std::string> names;
  for (const reports::SweptScenario& swept : config.scenarios) {
    const scenarios::Scenario* scenario = registry.find(swept.name);
    if (scenario == nullptr) {
      throw UsageError(fmt::format(
          "--resume: scenario '{}' of '{}' is not registered (a spec's: give its --spec again)",
          swept.name, sweep.dir));
    }
    if (scenario->description != swept.description || scenario->marks != swept.marks) {
      throw UsageError(fmt::format(
          "--resume: scenario '{}' is not what '{}' ran (its description or marks differ): "
          "resume with the same build and specs",
          swept.name, sweep.dir));
    }
    names.push_back(swept.name);
  }
  // The marks a branching sweep branches at are checked as --branch-at checks them: sweep.json may
  // be edited by hand, and a mark nobody reaches would make a sweep with no branch at all, green.
  try {
    check_branch_marks(registry, config.branch_marks);
  } catch (const UsageError& error) {
    throw UsageError(fmt::format("--resume: '{}/sweep.json': {}", sweep.dir, error.what()));
  }
  // The options of how to run are checked as a sweep checks them; what to run is the sweep's.
  SweepArgs how = args;
  how.scenarios = names;
  how.specs.clear();
  how.seeds = "1";
  how.budget.clear();
  how.strategy = "random";
  how.shard.clear();
  how.out = sweep.dir;
  SweepPlan plan = plan_sweep(registry, how, {});
  plan.config = config;
  if (sweep.manifest.shard_indices.size() != 1) {
    throw UsageError(fmt::format("--resume: '{}' holds a merge, not one sweep", sweep.dir));
  }
  plan.shard = Shard{sweep.manifest.shard_indices.front(), sweep.manifest.shard_count};
  for (const reports::RunRecord& record : sweep.records) {
    if (!record.branch) plan.done.emplace(record.scenario, record.strategy, record.seed);
  }
  if (plan.budgeted()) {
    plan.budget_left_ms = sweep.manifest.interrupted->budget_left_ms.value_or(0);
    if (*plan.budget_left_ms == 0) {
      throw UsageError(
          fmt::format("--resume: '{}' had spent its whole budget when it was stopped", sweep.dir));
    }
  }
  return plan;
}

}  // namespace fencesim::cli
