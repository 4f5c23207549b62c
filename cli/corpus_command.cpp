// `fencesim corpus run DIR`: replays every replay file of a failing-seed corpus (corpus/README.md)
// on this build, whichever fencesim version wrote it (older schemas are migrated), and classifies
// each by its outcome:
//   still-failing              fails with the recorded status and first violated invariant
//   fails-differently          fails, with another status or first invariant
//   fixed                      passes, and every fault of its plan fired as before
//   no-longer-reaches-trigger  passes, but some fault never fired: the moment it waited for is no
//                              longer reached, so the pass proves nothing
//   unreadable                 the file cannot be used (its one-line error is shown)
// and by its history (reports/replay_compare.h): same-history; history-changed, with the first
// divergent event; trigger-not-reached.
// Exit 1 if any file still fails or fails differently; else 2 if any is unreadable; else 0 (the
// history verdicts inform, they never set the exit code). A missing folder, or one without any
// *.json file, is exit 2.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/commands.h"
#include "cli/corpus_entry.h"
#include "cli/corpus_faults.h"
#include "cli/execute.h"
#include "cli/parse.h"
#include "reports/replay_compare.h"
#include "reports/replay_file.h"
#include "reports/json_text.h"

namespace fencesim::cli {

namespace {

namespace fs = std::filesystem;

constexpr std::array<std::string_view, 5> kClasses{
    "still-failing", "fails-differently", "no-longer-reaches-trigger", "fixed", "unreadable"};
constexpr std::array<std::string_view, 3> kHistories{"same-history", "history-changed",
                                                     "trigger-not-reached"};

struct Verdict {
  std::string file;  // the name inside the folder
  std::string verdict;
  std::string detail;
  std::string status;  // "" when it did not run
  std::size_t faults = 0;
  std::size_t faults_applied = 0;
  std::string written_by;                             // the fencesim version that wrote the file
  std::optional<reports::HistoryComparison> history;  // set when it ran
};

std::vector<fs::path> replay_files(const std::string& dir) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) {
    throw UsageError(fmt::format("corpus: '{}' is not a folder", dir));
  }
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
    if (entry.path().extension() == ".json" && entry.is_regular_file()) {
      files.push_back(entry.path());
    }
  }
  if (error) throw UsageError(fmt::format("corpus: cannot list '{}': {}", dir, error.message()));
  if (files.empty()) throw UsageError(fmt::format("corpus: no replay file (*.json) in '{}'", dir));
  std::sort(files.begin(), files.end(),
            [](const fs::path& a, const fs::path& b) { return a.filename() < b.filename(); });
  return files;
}

std::string first_invariant(const properties::RunReport& report) {
  return report.violations.empty() ? "" : report.violations.front().invariant;
}

std::string outcome(const properties::RunReport& report) {
  const std::string status(properties::to_string(report.status));
  if (report.status == properties::RunStatus::kViolation) {
    return fmt::format("{} of {}", status, first_invariant(report));
  }
  return report.detail.empty() ? status : fmt::format("{}: {}", status, report.detail);
}

Verdict judge(const scenarios::ScenarioRegistry& registry, const fs::path& path) {
  Verdict verdict;
  verdict.file = path.filename().string();
  try {
    const CorpusEntry entry = read_corpus_file(registry, path.string());
    const reports::ReplayFile& file = entry.file;
    verdict.written_by = file.fencesim_version;
    std::map<std::string, std::size_t> applied;
    const Inspect count_applied = [&](const sim::World& world,
                                      const properties::RunReport& report) {
      for (const sim::HistoryEvent& event : world.history().events()) {
        if (event.world == sim::WorldEventKind::kFaultApplied) ++applied[event.detail];
      }
      verdict.history = reports::compare_history(file, world, report.history_hash);
    };
    const TimedRun run = entry.run.execute("", count_applied);
    const properties::RunReport& report = run.report;
    verdict.status = std::string(properties::to_string(report.status));
    verdict.faults = file.plan.faults.size();
    for (const auto& [description, count] : applied) verdict.faults_applied += count;
    if (reports::fails_as_recorded(file, report)) {
      verdict.verdict = "still-failing";
      verdict.detail = outcome(report);
    } else if (report.status != properties::RunStatus::kPass) {
      verdict.verdict = "fails-differently";
      verdict.detail =
          fmt::format("now {}; recorded {}{}", outcome(report), file.expected_status,
                      file.violations.empty() ? "" : " of " + file.violations.front().invariant);
    } else if (const auto unfired = unfired_faults(file.plan, applied); !unfired.empty()) {
      verdict.verdict = "no-longer-reaches-trigger";
      verdict.detail = fmt::format("passes, but {} of {} faults never fired (first: {})",
                                   unfired.size(), file.plan.faults.size(), unfired.front());
    } else {
      verdict.verdict = "fixed";
      const std::size_t faults = file.plan.faults.size();
      verdict.detail = faults == 0 ? std::string("passes (its plan has no fault)")
                                   : fmt::format("passes, and all {} fault{} fired as before",
                                                 faults, faults == 1 ? "" : "s");
    }
  } catch (const reports::ReplayFileError& error) {
    verdict.verdict = "unreadable";
    verdict.detail = error.what();
  } catch (const UsageError& error) {  // an unknown scenario
    verdict.verdict = "unreadable";
    verdict.detail = fmt::format("replay file '{}': {}", path.string(), error.what());
  } catch (const properties::UsageError& error) {  // an unknown sink double
    verdict.verdict = "unreadable";
    verdict.detail = fmt::format("replay file '{}': {}", path.string(), error.what());
  } catch (const HarnessFailure& error) {
    verdict.verdict = "fails-differently";
    verdict.detail = error.what();
  }
  return verdict;
}

}  // namespace

int corpus_command(const scenarios::ScenarioRegistry& registry, const CorpusArgs& args,
                   std::ostream& out, std::ostream& /*err*/) {
  const std::vector<fs::path> files = replay_files(args.dir);
  std::map<std::string, std::size_t> tally;
  std::vector<Verdict> verdicts;
  for (const fs::path& path : files) {
    verdicts.push_back(judge(registry, path));
    ++tally[verdicts.back().verdict];
    if (!args.json) {
      const Verdict& v = verdicts.back();
      fmt::print(out, "{:<26} {}  {}\n", v.verdict, v.file, v.detail);
      if (v.history) {
        fmt::print(out, "{:<26} {}  {} (written by fencesim {})\n",
                   reports::to_string(v.history->verdict), v.file, v.history->detail, v.written_by);
      }
      out.flush();
    }
  }
  std::map<std::string, std::size_t> histories;
  for (const Verdict& v : verdicts) {
    if (v.history) ++histories[std::string(reports::to_string(v.history->verdict))];
  }
  std::string tally_text;
  for (std::string_view name : kClasses) {
    tally_text +=
        fmt::format("{}{} {}", tally_text.empty() ? "" : ", ", tally[std::string(name)], name);
  }
  if (args.json) {
    nlohmann::ordered_json json{{"corpus", args.dir}, {"files", nlohmann::ordered_json::array()}};
    for (const Verdict& v : verdicts) {
      nlohmann::ordered_json entry{{"file", v.file}, {"verdict", v.verdict}, {"detail", v.detail}};
      if (!v.status.empty()) {
        entry["status"] = v.status;
        entry["faults"] = v.faults;
        entry["faults_applied"] = v.faults_applied;
      }
      if (v.history) {
        entry["written_by"] = v.written_by;
        entry["history"] = reports::to_string(v.history->verdict);
        entry["history_detail"] = v.history->detail;
        if (v.history->first_divergent_event) {
          entry["first_divergent_event"] = *v.history->first_divergent_event;
        }
      }
      json["files"].push_back(entry);
    }
    nlohmann::ordered_json counts = nlohmann::ordered_json::object();
    for (std::string_view name : kClasses) counts[std::string(name)] = tally[std::string(name)];
    json["tally"] = counts;
    nlohmann::ordered_json history_counts = nlohmann::ordered_json::object();
    for (std::string_view name : kHistories) {
      history_counts[std::string(name)] = histories[std::string(name)];
    }
    json["history_tally"] = history_counts;
    out << reports::json_text(json) << '\n';
  } else {
    fmt::print(out, "corpus {}: {} files: {}\n", args.dir, files.size(), tally_text);
    fmt::print(out, "histories: {} same-history, {} history-changed, {} trigger-not-reached\n",
               histories["same-history"], histories["history-changed"],
               histories["trigger-not-reached"]);
  }
  if (tally["still-failing"] + tally["fails-differently"] > 0) return kExitViolation;
  if (tally["unreadable"] > 0) return kExitUsage;
  return kExitPass;
}

}  // namespace fencesim::cli
