// `fencesim replay FILE`: runs a replay file's world again and checks that the outcome is the one
// it recorded (same status, same history hash); exit 4 when it is not (docs/replay-files.md).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fmt/ostream.h>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/parse.h"
#include "cli/replay_run.h"
#include "reports/replay_compare.h"
#include "reports/replay_file.h"
#include "reports/timeline_files.h"
#include "reports/json_text.h"

namespace fencesim::cli {

namespace {

// One line saying whether the run matches the file, and how it differs if not.
std::string verdict(const reports::ReplayFile& file, const properties::RunReport& report,
                    const std::string& path) {
  const std::string status(properties::to_string(report.status));
  const std::string hash = reports::hash_hex(report.history_hash);
  // The invariants the run violated, in order, against the file's (a file written without them,
  // as hand-made ones may be, is judged by its status and hash): one history judged another way is
  // not the run on file, as properties::runs_agree holds a determinism check to.
  const auto invariants = [](const auto& violations) {
    std::vector<std::string> names;
    for (const auto& violation : violations) names.push_back(violation.invariant);
    return names;
  };
  const std::vector<std::string> recorded = invariants(file.violations);
  const std::vector<std::string> found = invariants(report.violations);
  const bool same_verdict = recorded.empty() || recorded == found;
  if (status == file.expected_status && hash == file.expected_history_hash && same_verdict) {
    return fmt::format("replay matches {}: status {}, history hash {}", path, status, hash);
  }
  std::string line = fmt::format("replay DIFFERS from {}:", path);
  if (hash != file.expected_history_hash) {
    line +=
        fmt::format(" history hash {} but the file recorded {};", hash, file.expected_history_hash);
  }
  if (status != file.expected_status) {
    line += fmt::format(" status {} but the file recorded {};", status, file.expected_status);
  }
  if (!same_verdict) {
    line += fmt::format(" violated {} but the file recorded {};",
                        found.empty() ? "nothing" : fmt::format("{}", fmt::join(found, ", ")),
                        fmt::join(recorded, ", "));
  }
  line.back() = '.';
  return line;
}

// The exit code of a replay. The run's own (0, 1, 3, 5) only when it is the run the file recorded
// (same status, same history hash): then 1 says "the failure is still there", bit for bit, and 0
// that a recorded pass (a sweep's passing branch) still passes. Any other run exits 4, whatever
// its status: a recorded failure that now passes must not read as "all is well", and another
// failure, or a branch whose history moved, is not the one on file. Plain and branch files alike.
int replay_exit_code(bool matches, properties::RunStatus status) {
  return matches ? properties::exit_code(status) : kExitNondeterminism;
}

// What the file recorded, and whether this replay is that run: the `replay` object of --json.
nlohmann::ordered_json replay_json(const reports::ReplayFile& file, const std::string& path,
                                   bool matches) {
  return {{"file", path},
          {"matches", matches},
          {"expected_status", file.expected_status},
          {"expected_history_hash", file.expected_history_hash},
          {"written_by", file.fencesim_version}};
}

// The replay of a file whose run now throws out of the harness (an edited plan naming a node the
// scenario does not have, another fencesim whose scenario changed).
int threw(const reports::ReplayFile& file, const ReplayArgs& args, const std::string& error,
          std::ostream& out, std::ostream& err) {
  const std::string line =
      fmt::format("replay DIFFERS from {}: the run ended in a harness error ({}); the file recorded "
                  "status {}, history hash {}.",
                  args.file, error, file.expected_status, file.expected_history_hash);
  if (args.json) {
    nlohmann::ordered_json record;
    record["status"] = "harness-error";
    record["error"] = error;
    record["replay"] = replay_json(file, args.file, false);
    out << reports::json_text(record) << '\n';
  } else {
    fmt::print(out, "{}\n", line);
  }
  fmt::print(err, "fencesim: {}\n", line);
  return kExitNondeterminism;
}

}  // namespace

int replay_command(const scenarios::ScenarioRegistry& registry, const ReplayArgs& args,
                   std::ostream& out, std::ostream& err) {
  const reports::ReplayFile file = reports::read_replay_file(args.file);
  // Its spec registered, its choice log followed: the run `corpus run` and `shrink` make too.
  const ReplayRun replay(registry, file, args.file);
  const properties::RunRequest& request = replay.request();
  reports::RunPictures pictures(args.html, args.perfetto);
  try {
    pictures.check_paths();
  } catch (const reports::ReportFileError& error) {
    throw UsageError(error.what());
  }
  // How the history compares with the recorded one, whichever version wrote the file.
  reports::HistoryComparison history;
  std::optional<TimedRun> ran;
  try {
    ran = replay.execute(args.trace,
                         [&](const sim::World& world, const properties::RunReport& report) {
                           pictures.capture(world, report);
                           history = reports::compare_history(file, world, report.history_hash);
                         });
  } catch (const HarnessFailure& error) {
    // No file records a run that threw (a sweep keeps no replay file of one: it has no history),
    // so a run that throws now is not the run on file, whatever the file recorded: exit 4, as
    // every other replay that is not the recorded run, with the error in the one line.
    return threw(file, args, error.what(), out, err);
  }
  const TimedRun& run = *ran;
  const std::string line = verdict(file, run.report, args.file);
  const bool matches = line.starts_with("replay matches");
  try {
    pictures.write(replay_command(args.file));
  } catch (const reports::ReportFileError& error) {
    throw UsageError(error.what());
  }
  if (args.json) {
    nlohmann::ordered_json record = run_json(run, args.file);
    record["replay"] = replay_json(file, args.file, matches);
    record["replay"]["history"] = reports::to_string(history.verdict);
    record["replay"]["history_detail"] = history.detail;
    if (history.first_divergent_event) {
      record["replay"]["first_divergent_event"] = *history.first_divergent_event;
    }
    out << reports::json_text(record) << '\n';
  } else {
    fmt::print(out, "{}\n", configuration_line(request));
    print_summary(out, run);
    fmt::print(out, "{}\n", line);
    fmt::print(out,
               "history: {}: {} (file written by fencesim {}, schema {}; this is fencesim {})\n",
               reports::to_string(history.verdict), history.detail, file.fencesim_version,
               file.migrated_from == 0 ? reports::kReplayVersion : file.migrated_from,
               reports::fencesim_version());
  }
  if (!matches) fmt::print(err, "fencesim: {}\n", line);
  return replay_exit_code(matches, run.report.status);
}

}  // namespace fencesim::cli
