// `fencesim sweep`: many seeds of one or more scenarios in worker processes (cli/sweep_engine.h),
// with a share of passing seeds re-run in another worker for determinism, and the first failures
// of each kind (--draw-limit) shrunk and drawn. Prints each failure's command as it is found, a
// progress line while it runs, and a summary per scenario at the end; writes the reports of
// docs/reports.md to --out.
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <ostream>

#include "cli/commands.h"
#include "cli/parse.h"
#include "cli/seconds_between.h"
#include "cli/sweep_engine.h"
#include "cli/sweep_interrupt.h"
#include "cli/sweep_known.h"
#include "cli/sweep_output.h"
#include "cli/sweep_resume.h"
#include "reports/claims.h"
#include "reports/replay_file.h"
#include "scenarios/spec.h"

namespace fencesim::cli {

namespace {

// The sweep's parent writes to pipes of workers that may have died: a broken pipe is an answer to
// read (the worker's death), not a reason for the parent to die too.
class IgnoreBrokenPipes {
 public:
  IgnoreBrokenPipes() : previous_(std::signal(SIGPIPE, SIG_IGN)) {}
  ~IgnoreBrokenPipes() { std::signal(SIGPIPE, previous_); }
  IgnoreBrokenPipes(const IgnoreBrokenPipes&) = delete;
  IgnoreBrokenPipes& operator=(const IgnoreBrokenPipes&) = delete;

 private:
  void (*previous_)(int);
};

std::string configuration_line(const SweepPlan& plan) {
  std::string scenarios;
  for (const reports::SweptScenario& scenario : plan.config.scenarios) {
    scenarios += (scenarios.empty() ? "" : ",") + scenario.name;
  }
  std::string strategies;
  for (const std::string& strategy : plan.config.strategies) {
    strategies += (strategies.empty() ? "" : ",") + strategy;
  }
  std::string line = fmt::format(
      "sweep: scenarios={} seeds={} strategies={} shard={}/{} jobs={} determinism-every={}",
      scenarios, reports::describe_seeds(plan.config), strategies, plan.shard.index,
      plan.shard.count, plan.jobs, plan.config.determinism_every);
  if (!plan.config.sink_double.empty()) line += " sink-double=" + plan.config.sink_double;
  if (!plan.config.branch_marks.empty()) {
    line += fmt::format(" branch-at={} branches={}", fmt::join(plan.config.branch_marks, ","),
                        plan.config.branches);
  }
  return line + fmt::format(" out={} fencesim={}", plan.out, reports::fencesim_version());
}

void keep_failures_in_corpus(const SweepPlan& plan, const std::vector<reports::RunRecord>& records,
                             std::ostream& out, std::ostream& err) {
  std::uint64_t kept = 0;
  for (const reports::RunRecord& record : records) {
    try {
      if (!keep_in_corpus(plan.corpus, plan.out, record).empty()) ++kept;
    } catch (const reports::SweepFileError& error) {
      // The sweep's own reports still matter more than the corpus: say so and go on.
      fmt::print(err, "fencesim: --corpus: {}\n", error.what());
    }
  }
  fmt::print(out, "corpus: {} new failure{} kept in {}\n", kept, kept == 1 ? "" : "s", plan.corpus);
}

// Registers each --spec into the sweep's registry (the workers inherit it when they are forked),
// and notes the file each scenario was read from, as an absolute path, in `files`.
std::vector<std::string> register_specs(scenarios::ScenarioRegistry& registry,
                                        const std::vector<std::string>& specs,
                                        std::string_view option,
                                        std::map<std::string, std::string>& files) {
  std::vector<std::string> names;
  for (const std::string& spec : specs) {
    try {
      names.push_back(scenarios::register_spec_file(registry, spec));
      // Absolute: the commands in a sweep's files are run from inside its output folder.
      files.try_emplace(names.back(), std::filesystem::absolute(spec).lexically_normal().string());
    } catch (const scenarios::SpecError& error) {
      throw UsageError(fmt::format("{}: {}", option, error.what()));
    }
  }
  return names;
}

}  // namespace

int sweep_command(const scenarios::ScenarioRegistry& builtin, const SweepArgs& args,
                  std::ostream& out, std::ostream& err) {
  const Clock::time_point start = Clock::now();
  // Caught from here on: a signal while the plan is made still gets an orderly end.
  const InterruptCatcher catcher;
  scenarios::ScenarioRegistry registry = builtin;
  std::map<std::string, std::string> spec_files;  // scenario -> the spec file it was read from
  const std::vector<std::string> spec_names =
      register_specs(registry, args.specs, "--spec", spec_files);
  // Registered only: the plan sweeps every registered scenario unless the sweep is narrowed.
  register_specs(registry, args.with_specs, "--with-spec", spec_files);
  std::optional<InterruptedSweep> resumed;
  if (!args.resume.empty()) resumed = read_interrupted_sweep(args.resume);
  SweepPlan plan =
      resumed ? plan_resumed(registry, args, *resumed) : plan_sweep(registry, args, spec_names);
  // The files given now, where the plan (a resumed sweep's sweep.json) does not name one already.
  for (reports::SweptScenario& swept : plan.config.scenarios) {
    if (const auto it = spec_files.find(swept.name); it != spec_files.end() && swept.spec.empty()) {
      swept.spec = it->second;
    }
  }
  WorkerSetup setup{&registry, &plan, crash_hook_from_environment()};

  reports::SweepManifest manifest;
  if (resumed) {
    // The same sweep, still marked interrupted until it ends: a resume that dies can be resumed.
    manifest = resumed->manifest;
    manifest.completed = false;
  } else {
    manifest.fencesim_version = std::string(reports::fencesim_version());
    manifest.configuration = plan.config;
    manifest.shard_count = plan.shard.count;
    manifest.shard_indices = {plan.shard.index};
  }
  const FailOn fail_on = parse_fail_on(args.fail_on);
  // Read before anything runs: a --known that cannot be read is bad input, not a late surprise.
  if (!args.known.empty()) manifest.known = read_known(registry, args.known);
  prepare_output_folder("--out", plan.out, manifest);
  if (!plan.corpus.empty()) prepare_corpus_folder(plan.corpus);
  // sweep.json first: it claims the folder for this sweep, and says "not completed" until the end.
  reports::write_sweep_manifest(plan.out + "/sweep.json", manifest);
  std::error_code created;
  std::filesystem::create_directories(plan.out + "/failures", created);
  if (!created && !plan.config.branch_marks.empty()) {
    std::filesystem::create_directories(plan.out + "/branches", created);
  }
  if (created) {
    throw UsageError(
        fmt::format("--out: cannot create '{}/failures': {}", plan.out, created.message()));
  }
  fmt::print(out, "{}\n", configuration_line(plan));
  if (resumed) {
    fmt::print(out, "resume: {} runs made before {} stopped it; seeds not run: {}\n",
               resumed->records.size(), manifest.interrupted->signal,
               reports::describe_seed_spans(manifest.interrupted->seeds_not_run));
  }
  if (manifest.known) {
    fmt::print(out, "known: {} failure signature{} from {}; --fail-on {}\n",
               manifest.known->signatures.size(), manifest.known->signatures.size() == 1 ? "" : "s",
               args.known.empty() ? std::string("the interrupted sweep") : args.known,
               args.fail_on);
  }
  out.flush();

  const bool terminal = &out == &std::cout && isatty(STDOUT_FILENO) == 1;
  SweepProgress progress(out, terminal, plan, TaskSource(plan).total(), start);
  SweepResults results;
  {
    const IgnoreBrokenPipes ignore;
    results = run_sweep_tasks(setup, progress, start);
  }
  progress.finish();
  if (!plan.corpus.empty()) keep_failures_in_corpus(plan, results.records, out, err);
  std::vector<reports::RunRecord> records = std::move(results.records);
  std::vector<reports::RunTime> times = std::move(results.times);
  manifest.wall_seconds = seconds_since(start);
  manifest.runs_cut_by_budget = results.cut_by_budget;
  if (resumed) {
    records.insert(records.begin(), resumed->records.begin(), resumed->records.end());
    times.insert(times.begin(), resumed->times.begin(), resumed->times.end());
    manifest.wall_seconds += resumed->manifest.wall_seconds;
    manifest.runs_cut_by_budget += resumed->manifest.runs_cut_by_budget;
  }
  manifest.interrupted.reset();
  if (results.interrupted_by != 0) {
    // The branch runs of the seeds cut short go with them: a resume runs those seeds whole.
    drop_branches_without_parent(records, times);
    reports::Interruption interruption;
    interruption.signal = reports::signal_name(results.interrupted_by);
    interruption.seeds_not_run = seeds_not_run(plan, records, results.next_seed);
    if (plan.budgeted()) {
      const double left = plan.budget_seconds() - seconds_since(start);
      interruption.budget_left_ms = left > 0 ? static_cast<std::uint64_t>(left * 1e3) : 0;
    }
    manifest.interrupted = std::move(interruption);
  }
  const int exit =
      sweep_exit_code(records, fail_on, manifest.known ? &*manifest.known : nullptr,
                      reports::count_missed(reports::judge_claims(plan.config, records)));
  const nlohmann::ordered_json summary =
      write_reports(plan.out, manifest, std::move(records), std::move(times));
  print_summary_lines(out, summary, plan.out);
  if (plan.budgeted()) {
    const double used = seconds_since(start);
    fmt::print(out, "budget: {:.1f}s of {:.1f}s used ({:.1f}%){}\n", used, plan.budget_seconds(),
               100.0 * used / plan.budget_seconds(),
               results.cut_by_budget == 0
                   ? std::string()
                   : fmt::format(", {} runs cut short at the end", results.cut_by_budget));
  }
  if (results.stopped_at_failures) {
    fmt::print(out, "stopped early: {} failure{} (--stop-after-failures); later seeds not run\n",
               plan.stop_after_failures, plan.stop_after_failures == 1 ? "" : "s");
  }
  fmt::print(out,
             "reports: {0}/summary.json {0}/summary.md {0}/junit.xml {0}/report.html ({1:.1f}s)\n",
             plan.out, seconds_since(start));
  if (manifest.interrupted) {
    fmt::print(out,
               "interrupted by {}: the reports hold the runs made; seeds not run: {}; continue: "
               "fencesim sweep --resume {}\n",
               manifest.interrupted->signal,
               reports::describe_seed_spans(manifest.interrupted->seeds_not_run), plan.out);
    return 128 + results.interrupted_by;
  }
  return exit;
}

}  // namespace fencesim::cli
