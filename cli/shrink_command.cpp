// `fencesim shrink FILE`: runs a replay file's failure again, shrinks its fault plan to a minimal
// one that fails the same way (properties/shrink.h), writes that as a new replay file, and says
// what it removed. A file that no longer fails as recorded cannot be shrunk, nor can a schedule
// `fencesim explore` found (its choice log fits its own plan only): exit 2.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <filesystem>
#include <ostream>

#include "cli/commands.h"
#include "cli/execute.h"
#include "cli/output.h"
#include "cli/parse.h"
#include "cli/replay_run.h"
#include "properties/shrink.h"
#include "reports/replay_file.h"

namespace fencesim::cli {

namespace {

// FILE.json -> FILE.shrunk.json; any other name gets .shrunk.json appended.
std::string default_out(const std::string& file) {
  const std::string stem = file.ends_with(".json") ? file.substr(0, file.size() - 5) : file;
  return stem + ".shrunk.json";
}

std::uint64_t parse_max_runs(const std::string& text) {
  const std::uint64_t runs = parse_seed("--max-runs", text);
  if (runs == 0) throw UsageError("--max-runs: must be at least 1");
  return runs;
}

// "violation (sink-monotonicity)", "liveness".
std::string outcome(const std::string& status, const std::string& first_invariant) {
  return first_invariant.empty() ? status : fmt::format("{} ({})", status, first_invariant);
}

}  // namespace

int shrink_command(const scenarios::ScenarioRegistry& registry, const ShrinkArgs& args,
                   std::ostream& out, std::ostream& err) {
  const std::uint64_t max_runs = parse_max_runs(args.max_runs);
  const std::string out_path = args.out.empty() ? default_out(args.file) : args.out;
  std::error_code same_error;
  if (std::filesystem::exists(out_path, same_error) &&
      std::filesystem::equivalent(args.file, out_path, same_error)) {
    throw UsageError(fmt::format("--out: '{}' is the replay file being shrunk", out_path));
  }
  const reports::ReplayFile file = reports::read_replay_file(args.file);
  if (file.expected_status == properties::to_string(properties::RunStatus::kPass)) {
    throw UsageError(
        fmt::format("replay file '{}' records a passing run: nothing to shrink", args.file));
  }
  // The recorded run, as `fencesim replay` makes it: shrinking starts from the failure on file.
  const ReplayRun replay(registry, file, args.file);
  const scenarios::ScenarioRegistry& shrink_registry = replay.registry();
  const properties::RunRequest& request = replay.request();
  const TimedRun first = replay.execute("");
  if (!reports::fails_as_recorded(file, first.report)) {
    const auto& now = first.report;
    throw UsageError(fmt::format(
        "replay file '{}' no longer fails as recorded (recorded {}, now {}): nothing to shrink",
        args.file,
        outcome(file.expected_status,
                file.violations.empty() ? "" : file.violations.front().invariant),
        outcome(std::string(properties::to_string(now.status)),
                now.violations.empty() ? "" : now.violations.front().invariant)));
  }

  if (file.choices) {
    // A choice log indexes the choice points of this plan's schedule; a candidate plan (a fault
    // removed, a duration cut) has other choice points, where the log's indices pick fibers and
    // values it never meant. Shrinking would judge runs nobody explored and write one as "the
    // same failure": refused, as for any file that cannot be shrunk. The line says whether the
    // run just made was the recorded one, bit for bit.
    const std::string hash = reports::hash_hex(first.report.history_hash);
    throw UsageError(fmt::format(
        "replay file '{}' is a schedule found by fencesim explore: it fails as recorded{}, but "
        "its choice log fits only its own fault plan, so it cannot be shrunk (replay it: "
        "fencesim replay {})",
        args.file,
        hash == file.expected_history_hash
            ? std::string(" with its recorded history")
            : fmt::format(" (history hash {}, recorded {})", hash, file.expected_history_hash),
        args.file));
  }

  properties::ShrinkResult shrunk;
  try {
    shrunk = properties::shrink_failure(shrink_registry, first.report, max_runs);
  } catch (const std::exception& error) {
    throw HarnessFailure(
        fmt::format("harness error while shrinking '{}': {}", args.file, error.what()));
  }
  reports::write_replay_file(out_path, reports::make_replay_file(shrunk.report, shrink_registry));

  // The replay command first, as everywhere: it is what a person copies.
  fmt::print(out, "{}\n", replay_command(out_path));
  fmt::print(out, "{}\n", configuration_line(request));
  if (reports::hash_hex(first.report.history_hash) != file.expected_history_hash) {
    fmt::print(out,
               "note: the failure reproduces, but its history hash differs from the one "
               "recorded (the file was edited, or written by another build)\n");
  }
  for (const std::string& line : shrunk.removed) fmt::print(out, "  {}\n", line);
  fmt::print(out, "faults: {} -> {} ({} runs)\n", file.plan.faults.size(),
             shrunk.plan.faults.size(), shrunk.runs);
  for (const sim::Fault& fault : shrunk.plan.faults) {
    fmt::print(out, "  kept: {}\n", sim::describe(fault));
  }
  const auto& report = shrunk.report;
  fmt::print(out, "still fails: {}\n",
             outcome(std::string(properties::to_string(report.status)),
                     report.violations.empty() ? "" : report.violations.front().invariant));
  if (shrunk.runs >= max_runs) {
    fmt::print(err,
               "fencesim: shrinking stopped at --max-runs {}: the plan may shrink further with a "
               "larger budget\n",
               max_runs);
  }
  fmt::print(out, "shrunk replay file: {}\n", out_path);
  return kExitPass;
}

}  // namespace fencesim::cli
