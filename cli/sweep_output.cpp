#include "cli/sweep_output.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

#include "cli/commands.h"
#include "cli/parse.h"
#include "cli/sweep_failure.h"
#include "reports/junit.h"
#include "reports/summary.h"
#include "reports/timeline.h"

namespace fencesim::cli {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

// The sweep report draws the first failures' timelines; every failure keeps its own page.
constexpr std::size_t kTimelinesInReport = 25;

// Creates (and removes) a file in `dir`: the only sure test of writing there (permissions, a
// read-only mount, root's exemptions).
void check_writable(const std::string& option, const std::string& dir) {
  const std::string probe = fmt::format("{}/.fencesim-write-test-{}", dir, getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw UsageError(fmt::format("{}: cannot write in '{}': {}", option, dir, strerror(errno)));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

// Makes the folder if it is missing; refuses a file. Returns whether it was there before.
bool make_folder(const std::string& option, const std::string& dir) {
  std::error_code error;
  const fs::file_status status = fs::status(dir, error);
  if (fs::exists(status)) {
    if (!fs::is_directory(status)) {
      throw UsageError(fmt::format("{}: '{}' is a file, not a folder", option, dir));
    }
    return true;
  }
  fs::create_directories(dir, error);
  if (error) {
    throw UsageError(fmt::format("{}: cannot create '{}': {}", option, dir, error.message()));
  }
  return false;
}

bool is_empty_folder(const std::string& dir) {
  std::error_code error;
  return fs::directory_iterator(dir, error) == fs::directory_iterator();
}

bool same_sweep(const reports::SweepManifest& a, const reports::SweepManifest& b) {
  return a.fencesim_version == b.fencesim_version && a.configuration == b.configuration &&
         a.shard_count == b.shard_count && a.shard_indices == b.shard_indices;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw reports::SweepFileError(fmt::format("cannot read '{}'", path));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<ordered_json> failure_timelines(const std::string& dir, const ordered_json& summary) {
  std::vector<ordered_json> timelines;
  for (const ordered_json& failure : summary["failures"]) {
    if (timelines.size() == kTimelinesInReport) break;
    if (!failure["timeline_file"].is_string()) continue;
    const std::string path = dir + "/" + failure["timeline_file"].get<std::string>();
    ordered_json timeline = ordered_json::parse(read_text(path), nullptr, false);
    if (timeline.is_discarded()) {
      throw reports::SweepFileError(fmt::format("{}: not JSON", path));
    }
    timelines.push_back(std::move(timeline));
  }
  return timelines;
}

std::string number(const ordered_json& value) {
  if (value.is_number_float()) return fmt::format("{:.0f}", value.get<double>());
  return value.dump();
}

}  // namespace

void prepare_output_folder(const std::string& option, const std::string& dir,
                           const reports::SweepManifest& manifest) {
  if (!make_folder(option, dir)) return;
  check_writable(option, dir);
  if (is_empty_folder(dir)) return;
  const std::string path = dir + "/sweep.json";
  if (!fs::exists(path)) {
    throw UsageError(fmt::format(
        "{}: '{}' is not empty and holds no fencesim results; give an empty or new folder", option,
        dir));
  }
  reports::SweepManifest there;
  try {
    there = reports::read_sweep_manifest(path);
  } catch (const reports::SweepFileError& error) {
    throw UsageError(
        fmt::format("{}: '{}' holds results that cannot be read ({}); give an empty "
                    "or new folder",
                    option, dir, error.what()));
  }
  if (!same_sweep(there, manifest)) {
    throw UsageError(fmt::format(
        "{}: '{}' holds the results of another sweep (other version, configuration or shard); "
        "give an empty or new folder",
        option, dir));
  }
}

void prepare_corpus_folder(const std::string& dir) {
  make_folder("--corpus", dir);
  check_writable("--corpus", dir);
}

std::string keep_in_corpus(const std::string& corpus, const std::string& out,
                           const reports::RunRecord& record) {
  if (!record.failure) return {};
  const std::string& source = record.failure->shrunk_replay.empty() ? record.failure->replay
                                                                    : record.failure->shrunk_replay;
  if (source.empty()) return {};
  const std::string what =
      record.first_violation ? record.first_violation->invariant : record.status;
  // The name says which failure this is, so that finding it again (the same seed failing the same
  // way, in a later sweep) does not add it twice; the invariant makes the seed failing another way
  // a new entry.
  const std::string file = failure_base_name(record.scenario, record.strategy, record.seed) + "-" +
                           file_name_safe(what) + ".replay.json";
  const std::string target = corpus + "/" + file;
  if (fs::exists(target)) return {};
  reports::write_file_atomically(target, read_text(out + "/" + source));
  return target;
}

ordered_json write_reports(const std::string& dir, const reports::SweepManifest& manifest,
                           std::vector<reports::RunRecord> records,
                           std::vector<reports::RunTime> times) {
  reports::sort_records(records);
  reports::sort_times(times);
  reports::write_run_records(dir + "/runs.jsonl", records);
  reports::write_run_times(dir + "/run_times.jsonl", times);
  ordered_json summary = reports::sweep_summary(manifest, records, times);
  reports::write_file_atomically(dir + "/summary.json", summary.dump(2) + "\n");
  reports::write_file_atomically(dir + "/junit.xml", reports::junit_xml(summary));
  reports::write_file_atomically(
      dir + "/report.html", reports::render_sweep_html(summary, failure_timelines(dir, summary)));
  reports::SweepManifest completed = manifest;
  completed.completed = true;
  reports::write_sweep_manifest(dir + "/sweep.json", completed);
  return summary;
}

void print_summary_lines(std::ostream& out, const ordered_json& summary) {
  for (const ordered_json& scenario : summary["scenarios"]) {
    fmt::print(out, "{}: {} runs, {} failures, {} nondeterministic, {}x virtual/wall\n",
               scenario["name"].get<std::string>(), number(scenario["runs"]),
               number(scenario["failures"]), number(scenario["nondeterministic"]),
               number(scenario["virtual_per_wall"]));
    std::string marks;
    for (const auto& [name, count] : scenario["marks"].items()) {
      marks += fmt::format(" {}={}", name, number(count));
    }
    fmt::print(out, "  marks:{}\n", marks.empty() ? " none" : marks);
    for (const ordered_json& mark : scenario["marks_never_reached"]) {
      fmt::print(out, "  mark never reached: {}\n", mark.get<std::string>());
    }
  }
  const ordered_json& totals = summary["totals"];
  const auto count = [&](const char* key) { return totals[key].get<std::uint64_t>(); };
  fmt::print(out,
             "sweep: {} passed, {} failed ({} violations or liveness, {} nondeterministic, {} "
             "harness errors)\n",
             count("passed"), count("failed") + count("nondeterministic"),
             count("failed") - count("harness_errors"), count("nondeterministic"),
             count("harness_errors"));
}

int sweep_exit_code(const std::vector<reports::RunRecord>& records) {
  const auto rank = [](int code) {
    switch (code) {
      case kExitHarnessError:
        return 4;
      case kExitNondeterminism:
        return 3;
      case kExitViolation:
        return 2;
      case kExitLiveness:
        return 1;
      default:
        return 0;
    }
  };
  int worst = kExitPass;
  for (const reports::RunRecord& record : records) {
    int code = kExitPass;
    if (record.status == "violation") code = kExitViolation;
    if (record.status == "liveness") code = kExitLiveness;
    if (record.status == "harness-error") code = kExitHarnessError;
    if (record.passed() && record.nondeterministic()) code = kExitNondeterminism;
    if (rank(code) > rank(worst)) worst = code;
  }
  return worst;
}

}  // namespace fencesim::cli
