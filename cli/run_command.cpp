// `fencesim list` and `fencesim run`.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <ostream>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/parse.h"
#include "cli/sweep_branch.h"
#include "reports/replay_file.h"
#include "reports/timeline_files.h"
#include "scenarios/spec.h"
#include "reports/json_text.h"

namespace fencesim::cli {

int list_command(const scenarios::ScenarioRegistry& registry, std::ostream& out) {
  for (const scenarios::Scenario* scenario : registry.all()) {
    fmt::print(out, "{}  {}\n", scenario->name, scenario->description);
  }
  return kExitPass;
}

namespace {

// Writes the replay file and returns its path, or "" (with the reason on `err`) if it could not be
// written: the run's outcome still stands.
std::string save_replay(const scenarios::ScenarioRegistry& registry, const RunArgs& args,
                        const properties::RunReport& report,
                        const std::optional<reports::HistoryRecord>& history, std::ostream& err) {
  const std::string path =
      args.replay_out.empty()
          ? fmt::format("fencesim-replay-{}-{}.json", report.request.scenario, report.request.seed)
          : args.replay_out;
  try {
    reports::ReplayFile file = reports::make_replay_file(report, registry);
    file.history = history;
    reports::write_replay_file(path, file);
  } catch (const reports::ReplayFileError& error) {
    fmt::print(err, "fencesim: {}\n", error.what());
    return {};
  }
  return path;
}

// `word` as one word for a POSIX shell: as is when plain, else single-quoted.
std::string shell_word(const std::string& word) {
  if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789-_./+=:,@%") == std::string::npos) {
    return word;
  }
  std::string quoted = "'";
  for (const char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// How to run this world again when no replay file was written (a passing run).
std::string rerun_command(const RunArgs& args, const properties::RunRequest& request) {
  std::string command = "fencesim run";
  command += args.spec.empty() ? " --scenario " + shell_word(request.scenario)
                               : " --spec " + shell_word(args.spec);
  command += fmt::format(" --seed {} --strategy {}", request.seed,
                         reports::strategy_name(request));
  if (!request.sink_double.empty()) command += " --sink-double " + shell_word(request.sink_double);
  if (request.branch) {
    command += fmt::format(" --branch {}:{}:{}", request.branch->mark, request.branch->event,
                           request.branch->number);
  }
  return command;
}

// Writes the --html and --perfetto files; a file that cannot be written is a usage error (exit 2).
void write_pictures(const reports::RunPictures& pictures, const std::string& replay_command) {
  try {
    pictures.write(replay_command);
  } catch (const reports::ReportFileError& error) {
    throw UsageError(error.what());
  }
}

}  // namespace

int run_command(scenarios::ScenarioRegistry& registry, const RunArgs& args, std::ostream& out,
                std::ostream& err) {
  if (args.scenario.empty() == args.spec.empty()) {
    throw UsageError("run: give exactly one of --scenario NAME and --spec FILE");
  }
  const std::string scenario =
      args.spec.empty() ? args.scenario : scenarios::register_spec_file(registry, args.spec);
  check_scenario(registry, scenario);
  properties::RunRequest request;
  request.scenario = scenario;
  request.seed = parse_seed("--seed", args.seed);
  set_strategy("--strategy", args.strategy, request);
  request.sink_double = args.sink_double;
  if (!args.branch.empty()) request.branch = parse_branch_point(registry, "--branch", args.branch);

  reports::RunPictures pictures(args.html, args.perfetto);
  try {
    pictures.check_paths();
  } catch (const reports::ReportFileError& error) {
    throw UsageError(error.what());
  }
  // The history in brief goes into the replay file: a later fencesim says where it diverges.
  std::optional<reports::HistoryRecord> history;
  const TimedRun run = execute(registry, request, args.trace,
                               [&](const sim::World& world, const properties::RunReport& report) {
                                 pictures.capture(world, report);
                                 history = reports::record_history(world.history(), report.plan);
                               });
  std::string replay_file;
  if (run.report.status != properties::RunStatus::kPass) {
    replay_file = save_replay(registry, args, run.report, history, err);
    // The replay command comes first, before anything else on the stream a person reads.
    if (!replay_file.empty()) {
      fmt::print(args.json ? err : out, "{}\n", replay_command(replay_file));
    }
  }
  write_pictures(pictures,
                 replay_file.empty() ? rerun_command(args, request) : replay_command(replay_file));
  if (args.json) {
    out << reports::json_text(run_json(run, replay_file)) << '\n';
  } else {
    fmt::print(out, "{}\n", configuration_line(request));
    print_summary(out, run);
  }
  return properties::exit_code(run.report.status);
}

}  // namespace fencesim::cli
