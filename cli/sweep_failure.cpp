#include "cli/sweep_failure.h"

#include <fmt/format.h>

#include "cli/execute.h"
#include "properties/shrink.h"
#include "reports/perfetto.h"
#include "reports/replay_file.h"
#include "reports/timeline.h"
#include "reports/json_text.h"

namespace fencesim::cli {

namespace {

// Shrinking stops after this many worlds: enough for every plan the scenarios draw, and a bound
// on the time a failure takes from the sweep.
constexpr std::uint64_t kShrinkRuns = 500;

void add_note(reports::FailureFiles& files, const std::string& note) {
  files.note += files.note.empty() ? note : "; " + note;
}

// Runs `write` for `relative` (a path under the output folder); on failure notes why and returns
// "" instead of the path.
std::string try_write(reports::FailureFiles& files, const std::string& out,
                      const std::string& relative,
                      const std::function<void(const std::string&)>& write) {
  try {
    write(out + "/" + relative);
    return relative;
  } catch (const std::exception& error) {
    add_note(files, fmt::format("{} not written: {}", relative, error.what()));
    return {};
  }
}

void write_text(const std::string& path, const std::string& text) {
  reports::write_file_atomically(path, text);
}

// The shrunk run again, with its history kept, drawn as a timeline and a trace.
// Returns the shrunk run's history in brief, for its replay file.
reports::HistoryRecord draw_shrunk_run(const scenarios::ScenarioRegistry& registry,
                                       const properties::ShrinkResult& shrunk,
                                       const std::string& out, const std::string& base,
                                       reports::FailureFiles& files) {
  properties::RunRequest request = shrunk.report.request;
  request.plan_override = shrunk.plan;
  request.keep_events = true;
  reports::TimelineContext context;
  context.replay_command = files.shrunk_replay.empty() ? "fencesim replay " + files.replay
                                                       : "fencesim replay " + files.shrunk_replay;
  context.shrunk_plan = shrunk.plan;
  context.shrink_removed = shrunk.removed;
  nlohmann::ordered_json timeline;
  nlohmann::ordered_json trace;
  reports::HistoryRecord history;
  execute(registry, request, "", [&](const sim::World& world, const properties::RunReport& report) {
    timeline = reports::timeline_json(world, report, context);
    trace = reports::perfetto_trace(world, report);
    history = reports::record_history(world.history(), report.plan);
  });
  files.timeline = try_write(files, out, "failures/" + base + ".timeline.json",
                             [&](const std::string& path) { write_text(path, reports::json_text(timeline)); });
  files.html = try_write(files, out, "failures/" + base + ".html", [&](const std::string& path) {
    write_text(path, reports::render_run_html(timeline));
  });
  files.perfetto = try_write(files, out, "failures/" + base + ".perfetto.json",
                             [&](const std::string& path) { write_text(path, reports::json_text(trace)); });
  return history;
}

}  // namespace

std::string file_name_safe(std::string text) {
  for (char& c : text) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '-' || c == '_' || c == '.';
    if (!plain) c = '_';
  }
  return text;
}

std::string failure_base_name(const std::string& scenario, const std::string& strategy,
                              std::uint64_t seed) {
  return file_name_safe(fmt::format("{}-{}-{}", scenario, strategy, seed));
}

std::string failure_base_name(const properties::RunRequest& request) {
  const std::string base =
      failure_base_name(request.scenario, reports::strategy_name(request), request.seed);
  if (!request.branch) return base;
  const properties::BranchPoint& at = *request.branch;
  return file_name_safe(fmt::format("{}-{}-e{}-b{}", base, at.mark, at.event, at.number));
}

reports::FailureFiles keep_failure(const scenarios::ScenarioRegistry& registry,
                                   const properties::RunReport& failure,
                                   const std::string& signature,
                                   const std::optional<reports::HistoryRecord>& history,
                                   const std::string& out,
                                   const std::function<bool(const reports::FailureFiles&)>& found) {
  const std::string base = failure_base_name(failure.request);
  reports::FailureFiles files;
  files.original_faults = failure.plan.faults.size();
  files.replay =
      try_write(files, out, "failures/" + base + ".replay.json", [&](const std::string& path) {
        reports::ReplayFile file = reports::make_replay_file(failure, registry);
        file.signature = signature;
        file.history = history;
        reports::write_replay_file(path, file);
      });
  if (!found(files)) return files;
  try {
    const properties::ShrinkResult shrunk =
        properties::shrink_failure(registry, failure, kShrinkRuns);
    files.shrunk_faults = shrunk.plan.faults.size();
    files.shrink_runs = shrunk.runs;
    files.shrink_removed = shrunk.removed;
    reports::ReplayFile shrunk_file = reports::make_replay_file(shrunk.report, registry);
    shrunk_file.signature = signature;
    const auto write_shrunk = [&](const std::string& path) {
      reports::write_replay_file(path, shrunk_file);
    };
    const std::string shrunk_name = "failures/" + base + ".shrunk.replay.json";
    files.shrunk_replay = try_write(files, out, shrunk_name, write_shrunk);
    // Drawing runs the shrunk plan again: its history goes into the shrunk replay file.
    shrunk_file.history = draw_shrunk_run(registry, shrunk, out, base, files);
    if (!files.shrunk_replay.empty())
      files.shrunk_replay = try_write(files, out, shrunk_name, write_shrunk);
  } catch (const std::exception& error) {
    // A harness error while shrinking or drawing: the failure and its replay file still stand.
    add_note(files, fmt::format("shrinking or drawing failed: {}", error.what()));
  }
  return files;
}

}  // namespace fencesim::cli
