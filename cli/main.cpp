// fencesim: the command line. Wiring only: CLI11 subcommands, then one command, with every error
// turned into one line on stderr and the exit code CI reads (see commands.h).
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>
#include <malloc.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/execute.h"
#include "cli/parse.h"
#include "properties/run.h"
#include "real/coordinator.h"
#include "reports/replay_file.h"
#include "reports/run_record.h"
#include "scenarios/spec.h"
#include "stores/store_setup_error.h"

namespace fencesim::cli {
namespace {

struct Args {
  RunArgs run;
  ReplayArgs replay;
  DeterminismArgs determinism;
  SweepArgs sweep;
  MergeArgs merge;
  ShrinkArgs shrink;
  CorpusArgs corpus;
  RealArgs real;
  RealWorkerArgs worker;
  ExploreArgs explore;
  BenchArgs bench;
  CheckSpecArgs check_spec;
};

void add_check_spec(CLI::App& app, CheckSpecArgs& args) {
  CLI::App* check = app.add_subcommand(
      "check-spec", "Check scenario specs without running them: every error, or what each composes");
  check->add_option("files", args.files, "Spec files (TOML, docs/specs.md)")->required();
}

void add_run(CLI::App& app, RunArgs& args) {
  CLI::App* run = app.add_subcommand("run", "Run one world of a scenario and check it");
  run->add_option("--scenario", args.scenario, "Scenario name (see 'fencesim list')");
  run->add_option("--spec", args.spec, "A TOML scenario spec to run instead (docs/specs.md)");
  run->add_option("--seed", args.seed, "Seed, an unsigned 64-bit integer")->required();
  run->add_option("--strategy", args.strategy,
                  "Scheduling strategy: random, pct, pct-dN (PCT with N change points) or drawn");
  run->add_flag("--json", args.json, "Print one JSON object instead of the summary");
  run->add_option("--trace", args.trace, "Write every history event, one a line, to FILE");
  run->add_option("--replay-out", args.replay_out,
                  "Replay file to write on a failure (default fencesim-replay-<scenario>-<seed>"
                  ".json)");
  run->add_option("--sink-double", args.sink_double,
                  "Replace every sink by a broken test double: " + properties::sink_double_list());
  run->add_option("--branch", args.branch,
                  "MARK:EVENT:N: run branch N of the seed's run at MARK's event EVENT (a sweep's "
                  "--branch-at run)");
  run->add_option("--html", args.html, "Write the run's timeline as a self-contained HTML page");
  run->add_option("--perfetto", args.perfetto,
                  "Write the run as a Chrome trace-event file (ui.perfetto.dev)");
}

void add_replay(CLI::App& app, ReplayArgs& args) {
  CLI::App* replay = app.add_subcommand("replay", "Run a replay file again and compare outcomes");
  replay->add_option("file", args.file, "Replay file written by 'fencesim run'")->required();
  replay->add_flag("--json", args.json, "Print one JSON object instead of the summary");
  replay->add_option("--trace", args.trace, "Write every history event, one a line, to FILE");
  replay->add_option("--html", args.html, "Write the run's timeline as a self-contained HTML page");
  replay->add_option("--perfetto", args.perfetto,
                     "Write the run as a Chrome trace-event file (ui.perfetto.dev)");
}

void add_explore(CLI::App& app, ExploreArgs& args) {
  CLI::App* explore = app.add_subcommand(
      "explore", "Explore every schedule of a small world within a delay bound (docs/explore.md)");
  explore->add_option("--scenario", args.scenario, "Scenario name (see 'fencesim list')")
      ->required();
  explore->add_option("--seed", args.seed, "The world's seed (its node streams); default 1");
  explore->add_option("--bound", args.bound, "Delays per schedule (delay bounding); default 2");
  explore->add_option("--max-schedules", args.max_schedules,
                      "Stop after this many schedules per search; default 100000");
  explore->add_flag("--no-reduction", args.no_reduction,
                    "Search only without the partial-order reduction (sleep sets)");
  explore->add_option("--sink-double", args.sink_double,
                      "Swap every sink for a broken double: " + properties::sink_double_list());
  explore->add_option("--out", args.out, "Folder for failing schedules' replay files");
  explore->add_option("--keep", args.keep, "Replay files written at most; default 5");
}

void add_determinism(CLI::App& app, DeterminismArgs& args) {
  CLI::App* check = app.add_subcommand(
      "check-determinism", "Run each seed twice in this process and compare history hashes");
  check->add_option("--scenario", args.scenario, "Scenario name (see 'fencesim list')")->required();
  check->add_option("--seeds", args.seeds, "Seeds A..B (inclusive)")->required();
  check->add_option("--strategy", args.strategy,
                    "Scheduling strategy: random, pct, pct-dN or drawn (drawn per seed)");
}

void add_bench(CLI::App& app, BenchArgs& args) {
  CLI::App* bench = app.add_subcommand(
      "bench", "Speed figures of one thread, every invariant on (docs/benchmarks.md)");
  bench->add_option("--scenario", args.scenario, "Scenario to run (default nightly-mix)");
  bench->add_option("--seeds", args.seeds, "Seeds A..B, run under each strategy (default 1..40)");
  bench->add_option("--switches", args.switches,
                    "Fiber switches per switch measurement (default 2000000)");
}

void add_sweep(CLI::App& app, SweepArgs& args) {
  CLI::App* sweep = app.add_subcommand(
      "sweep", "Run many seeds of scenarios in worker processes; shrink and report the failures");
  sweep->add_option("--scenario", args.scenarios, "Scenario name, repeatable (default: all)");
  sweep->add_option("--spec", args.specs, "TOML scenario spec to register and sweep, repeatable");
  sweep->add_option("--with-spec", args.with_specs,
                    "TOML scenario spec registered beside the built-in scenarios: swept with them "
                    "unless --scenario or --spec narrows the sweep, repeatable");
  sweep->add_option("--seeds", args.seeds, "Seeds A..B (inclusive); or give --budget");
  sweep->add_option("--budget", args.budget,
                    "Run seeds 1, 2, ... until this much real time is spent (90s, 2m, 1h)");
  sweep->add_option("--jobs", args.jobs, "Worker processes (default: one per core)");
  sweep->add_option("--shard", args.shard, "I/N: run only the seeds whose index % N == I");
  sweep->add_option("--strategy", args.strategy,
                    "drawn (one strategy per seed, drawn from it; the default), random, pct, "
                    "pct-dN or both");
  sweep->add_option("--determinism-every", args.determinism_every,
                    "Run every Kth seed again in another worker, when it passes (default 10)");
  sweep->add_option("--out", args.out, "Folder for the reports (default fencesim-out)");
  sweep->add_option("--corpus", args.corpus, "Folder to keep each failure's replay file in");
  sweep->add_option("--run-timeout", args.run_timeout,
                    "Real time one run (or a failure's shrinking) may take (default 60s)");
  sweep->add_option("--progress-every", args.progress_every,
                    "Progress line period when stdout is not a terminal (default 10s)");
  sweep->add_option("--draw-limit", args.draw_limit,
                    "Failures shrunk and drawn per scenario and failure signature (default 5)");
  sweep->add_option("--stop-after-failures", args.stop_after_failures,
                    "Hand out no new seed once this many runs failed (the seed begun is finished; "
                    "default 0: never stop early)");
  sweep->add_option("--sink-double", args.sink_double,
                    "Replace every sink by a broken test double: " +
                        properties::sink_double_list());
  sweep->add_option("--known", args.known,
                    "A corpus or an earlier sweep's output: mark each failure group new or known");
  sweep->add_option("--branch-at", args.branch_at,
                    "MARK[,MARK]: when a run reaches one, fork it into --branches runs with fresh "
                    "sub-seeds from that event on");
  sweep->add_option("--branches", args.branches,
                    "Branches per mark hit with --branch-at (1..64, "
                    "default 8)");
  sweep->add_option("--fail-on", args.fail_on,
                    "new: exit non-zero only for failure groups not in --known; any (default)");
  CLI::Option* resume = sweep->add_option(
      "--resume", args.resume,
      "Continue the sweep a signal interrupted in this folder: its configuration and the runs it "
      "made are read from there");
  // What to run comes from the interrupted sweep; only how to run may be given again.
  for (const char* name : {"--scenario", "--seeds", "--budget", "--shard", "--strategy",
                           "--determinism-every", "--out", "--sink-double", "--branch-at",
                           "--branches"}) {
    resume->excludes(sweep->get_option(name));
  }
}

void add_merge(CLI::App& app, MergeArgs& args) {
  CLI::App* merge =
      app.add_subcommand("merge", "Merge the output folders of a sweep's shards into one report");
  merge->add_option("--out", args.out, "Folder for the merged reports")->required();
  merge->add_option("shards", args.shards, "The shards' output folders")->required();
  merge->add_option("--known", args.known,
                    "A corpus or an earlier output, added to what the shards knew");
  merge->add_option("--fail-on", args.fail_on,
                    "new: exit non-zero only for failure groups not known; any (default)");
}

void add_shrink(CLI::App& app, ShrinkArgs& args) {
  CLI::App* shrink = app.add_subcommand(
      "shrink", "Shrink a replay file's failure to a minimal fault plan that fails the same way");
  shrink->add_option("file", args.file, "Replay file of a failing run")->required();
  shrink->add_option("--out", args.out, "Shrunk replay file (default FILE with .shrunk.json)");
  shrink->add_option("--max-runs", args.max_runs, "Worlds the shrinking may run (default 500)");
}

void add_corpus(CLI::App& app, CorpusArgs& args) {
  CLI::App* corpus =
      app.add_subcommand("corpus", "Work with a folder of failing-seed replay files");
  corpus->require_subcommand(1);
  CLI::App* run = corpus->add_subcommand(
      "run", "Replay every *.json replay file in DIR; say which still fail and which are fixed");
  run->add_option("dir", args.dir, "Corpus folder")->required();
  run->add_flag("--json", args.json, "Print one JSON object instead of the lines");
}

void add_real(CLI::App& app, RealArgs& args) {
  CLI::App* real = app.add_subcommand(
      "real", "Run a scenario with real processes, real SIGSTOP/SIGKILL and real stores");
  real->add_option("--scenario", args.scenario, "Scenario name (see 'fencesim list')")->required();
  real->add_option("--seed", args.seed, "Seed: fixes the fault plan (not the interleaving)")
      ->required();
  real->add_option("--store", args.store, "sqlite (default, a temporary file) or postgres");
  real->add_option(
      "--postgres", args.postgres,
      "PostgreSQL connection string for --store postgres (default $FENCESIM_POSTGRES)");
  real->add_option("--time-scale", args.time_scale,
                   "Real seconds per scenario second (default 0.01: a 30 s lease lasts 300 ms)");
  real->add_option("--json", args.json_file, "Write the run's report as JSON to FILE");
  real->add_option("--html", args.html, "Write the run's timeline as a self-contained HTML page");
  real->add_option("--trace", args.trace, "Write every event of the merged history, one a line");
  real->add_option("--sink-double", args.sink_double,
                   "Replace every sink by a broken one: accept-stale (a SQLite sink without the "
                   "token check)");
  real->add_option("--wall-limit", args.wall_limit_seconds,
                   "Real seconds the run may take (default twice its scaled phases plus 30)");
}

void add_real_worker(CLI::App& app, RealWorkerArgs& args) {
  CLI::App* worker = app.add_subcommand("real-worker", "");  // hidden: started by 'real'
  worker->group("");
  worker->add_option("--folder", args.folder)->required();
  worker->add_option("--scenario", args.scenario)->required();
  worker->add_option("--seed", args.seed)->required();
  worker->add_option("--node", args.node)->required();
  worker->add_option("--incarnation", args.incarnation);
  worker->add_option("--clock-start", args.clock_start_ns)->required();
  worker->add_option("--time-scale", args.time_scale)->required();
  worker->add_option("--store", args.store);
  worker->add_option("--postgres", args.postgres);
  worker->add_option("--postgres-schema", args.postgres_schema);
  worker->add_option("--sink-double", args.sink_double);
  worker->add_option("--control-fd", args.control_fd)->required();
  worker->add_option("--fired", args.fired);
}

// CLI11's messages, on one line.
std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

bool is_subcommand(CLI::App& app, const std::string& name) {
  const auto named = [&](const CLI::App* sub) { return sub->get_name() == name; };
  return !app.get_subcommands(named).empty();
}

int dispatch(const CLI::App& app, const Args& args) {
  // Not const: `run --spec` registers its spec.
  scenarios::ScenarioRegistry registry = scenarios::builtin_scenarios();
  if (app.got_subcommand("list")) return list_command(registry, std::cout);
  if (app.got_subcommand("check-spec")) {
    return check_spec_command(registry, args.check_spec, std::cout, std::cerr);
  }
  if (app.got_subcommand("run")) return run_command(registry, args.run, std::cout, std::cerr);
  if (app.got_subcommand("replay")) {
    return replay_command(registry, args.replay, std::cout, std::cerr);
  }
  if (app.got_subcommand("sweep")) return sweep_command(registry, args.sweep, std::cout, std::cerr);
  if (app.got_subcommand("merge")) return merge_command(registry, args.merge, std::cout, std::cerr);
  if (app.got_subcommand("shrink")) {
    return shrink_command(registry, args.shrink, std::cout, std::cerr);
  }
  if (app.got_subcommand("real")) return real_command(registry, args.real, std::cout, std::cerr);
  if (app.got_subcommand("real-worker")) return real_worker_command(args.worker);
  if (app.got_subcommand("explore")) {
    return explore_command(registry, args.explore, std::cout, std::cerr);
  }
  if (app.got_subcommand("bench")) return bench_command(registry, args.bench, std::cout, std::cerr);
  if (app.got_subcommand("corpus")) {
    return corpus_command(registry, args.corpus, std::cout, std::cerr);
  }
  return determinism_command(registry, args.determinism, std::cout, std::cerr);
}

int fail(int code, std::string_view message) {
  std::cout.flush();
  fmt::print(std::cerr, "fencesim: {}\n", message);
  return code;
}

int main_checked(int argc, char** argv) {
  CLI::App app(
      "fencesim: deterministic simulation of the lease-fenced workflow runtime "
      "(ADR-0023)",
      "fencesim");
  app.set_version_flag("--version", fmt::format("fencesim {}", reports::fencesim_version()));
  app.require_subcommand(1);
  app.add_subcommand("list", "List the scenarios, one a line");
  Args args;
  add_run(app, args.run);
  add_replay(app, args.replay);
  add_determinism(app, args.determinism);
  add_sweep(app, args.sweep);
  add_merge(app, args.merge);
  add_shrink(app, args.shrink);
  add_corpus(app, args.corpus);
  add_real(app, args.real);
  add_real_worker(app, args.worker);
  add_explore(app, args.explore);
  add_bench(app, args.bench);
  add_check_spec(app, args.check_spec);
  if (argc > 1 && argv[1][0] != '-' && !is_subcommand(app, argv[1])) {
    // The list is the registered subcommands, so it cannot fall behind them; hidden ones (the
    // real run's worker, group "") are the harness's own and not offered.
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      if (!sub->get_group().empty()) names.push_back(sub->get_name());
    }
    const std::string last = names.back();
    names.pop_back();
    return fail(kExitUsage,
                fmt::format("unknown command '{}' (expected {} or {}; try 'fencesim --help')",
                            argv[1], fmt::join(names, ", "), last));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) return app.exit(error);  // --help, --version
    return fail(kExitUsage, one_line(error.what()) + " (try 'fencesim --help')");
  }
  try {
    return dispatch(app, args);
  } catch (const UsageError& error) {
    return fail(kExitUsage, error.what());
  } catch (const properties::UsageError& error) {
    return fail(kExitUsage, error.what());
  } catch (const reports::ReplayFileError& error) {
    return fail(kExitUsage, error.what());
  } catch (const scenarios::SpecError& error) {
    return fail(kExitUsage, error.what());
  } catch (const reports::SweepFileError& error) {
    return fail(kExitUsage, error.what());
  } catch (const stores::StoreSetupError& error) {
    return fail(kExitUsage, one_line(error.what()));
  } catch (const real::Interrupted& error) {
    return fail(kExitInterrupted, error.what());
  } catch (const HarnessFailure& error) {
    return fail(kExitHarnessError, error.what());
  }
}

}  // namespace
}  // namespace fencesim::cli

int main(int argc, char** argv) {
  // A sweep builds thousands of worlds one after another, each growing its history to hundreds
  // of KiB. By default glibc hands that memory back to the kernel when a world ends, and the next
  // world pays a page fault per fresh page (the largest cost in profiles; docs/benchmarks.md).
  // Keeping freed memory in the process makes the next world reuse warm pages.
  mallopt(M_TRIM_THRESHOLD, 512 * 1024 * 1024);
  mallopt(M_MMAP_THRESHOLD, 64 * 1024 * 1024);
  try {
    return fencesim::cli::main_checked(argc, argv);
  } catch (const std::exception& error) {
    return fencesim::cli::fail(fencesim::cli::kExitHarnessError,
                               fmt::format("harness error: {}", error.what()));
  } catch (...) {
    return fencesim::cli::fail(fencesim::cli::kExitHarnessError,
                               "harness error: an unknown exception escaped");
  }
}
