#include "cli/sweep_output.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <unistd.h>

#include <algorithm>
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
#include "reports/signature.h"
#include "reports/summary.h"
#include "reports/summary_markdown.h"
#include "reports/timeline.h"
#include "reports/json_text.h"

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

// The timelines the report draws: each group's smallest example first, then the other drawn
// failures in order, kTimelinesInReport at most.
std::vector<ordered_json> failure_timelines(const std::string& dir, const ordered_json& summary) {
  std::vector<std::string> files;
  const auto take = [&](const ordered_json& file) {
    if (!file.is_string()) return;
    const std::string name = file.get<std::string>();
    if (std::find(files.begin(), files.end(), name) == files.end()) files.push_back(name);
  };
  for (const ordered_json& group : summary["groups"]) take(group["example"]["timeline_file"]);
  for (const ordered_json& failure : summary["failures"]) take(failure["timeline_file"]);
  std::vector<ordered_json> timelines;
  for (const std::string& file : files) {
    if (timelines.size() == kTimelinesInReport) break;
    const std::string path = dir + "/" + file;
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
  return reports::json_text(value);
}

// A fraction as a percentage with one decimal (what the distinct-history lines print).
std::string percent(const ordered_json& fraction) {
  return fmt::format("{:.1f}", fraction.is_number() ? 100.0 * fraction.get<double>() : 0.0);
}

std::string under(const std::string& dir, const ordered_json& path) {
  return path.is_string() ? dir + "/" + path.get<std::string>() : std::string("-");
}

// The console's first closing block: one paragraph per failure group, new ones first.
void print_groups(std::ostream& out, const ordered_json& summary, const std::string& dir) {
  const ordered_json& groups = summary["groups"];
  if (groups.empty()) return;
  const bool judged = summary["known"].is_object();
  fmt::print(out, "failure groups: {} distinct{}\n", groups.size(),
             judged
                 ? fmt::format(" ({} new, {} known)", reports::json_text(summary["totals"]["new_groups"]),
                               groups.size() - summary["totals"]["new_groups"].get<std::size_t>())
                 : std::string(" (no --known: all new)"));
  for (const ordered_json& group : groups) {
    const ordered_json& example = group["example"];
    const ordered_json& first = group["first"];
    std::string where;
    for (const ordered_json& name : group["scenarios"]) {
      where += (where.empty() ? "" : ",") + name.get<std::string>();
    }
    std::string strategies;
    for (const ordered_json& name : group["strategies"]) {
      strategies += (strategies.empty() ? "" : ",") + name.get<std::string>();
    }
    fmt::print(out, "  {} [{}] {} run{}: {}\n", group["known"] == true ? "known" : "NEW",
               group["id"].get<std::string>(), number(group["count"]),
               group["count"] == 1 ? "" : "s", group["signature"].get<std::string>());
    fmt::print(out, "    in {} ({}); first seed {} ({} {})\n", where, strategies,
               number(first["seed"]), first["scenario"].get<std::string>(),
               first["strategy"].get<std::string>());
    // The example's replay command names a path inside the output folder: shown from here.
    std::string command = example["replay_command"].get<std::string>();
    if (example["replay_file"].is_string() && command.starts_with("fencesim replay ")) {
      command = "fencesim replay " + under(dir, example["replay_file"]);
    }
    if (example["shrunk"] == true) {
      fmt::print(out, "    smallest: {} fault{} (shrunk): {}\n", number(example["faults"]),
                 example["faults"] == 1 ? "" : "s", command);
    } else {
      fmt::print(out, "    example (not shrunk): {}\n", command);
    }
    if (example["html"].is_string()) {
      fmt::print(out, "    timeline: {}\n", under(dir, example["html"]));
    }
  }
}

// The console's second closing block: the claims the sweep did not prove (a mark under its floor,
// a fault kind that never acted), then those it ran too few runs to judge.
void print_claims(std::ostream& out, const ordered_json& summary) {
  if (!summary.contains("claims")) return;
  const ordered_json& claims = summary["claims"];
  if (!claims["unproven"].empty()) {
    fmt::print(out, "UNPROVEN: {} claim{} of this sweep not proven (the harness did not test what "
                    "it says):\n",
               claims["unproven"].size(), claims["unproven"].size() == 1 ? "" : "s");
    for (const ordered_json& claim : claims["unproven"]) {
      fmt::print(out, "  {}: {}\n", claim["scenario"].get<std::string>(),
                 claim["message"].get<std::string>());
    }
  }
  if (!claims["not_judged"].empty()) {
    fmt::print(out, "not judged: {} mark floor{} (too few runs):\n", claims["not_judged"].size(),
               claims["not_judged"].size() == 1 ? "" : "s");
    for (const ordered_json& claim : claims["not_judged"]) {
      fmt::print(out, "  {}: {}\n", claim["scenario"].get<std::string>(),
                 claim["message"].get<std::string>());
    }
  }
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

void check_branching_recorded(std::string_view who, const std::string& dir,
                              const reports::SweepConfig& config,
                              const std::vector<reports::RunRecord>& records) {
  if (!config.branch_marks.empty()) return;
  const auto branch = std::find_if(records.begin(), records.end(),
                                   [](const reports::RunRecord& record) { return record.branch; });
  if (branch == records.end()) return;
  throw UsageError(fmt::format(
      "{}: '{}' holds branch runs ({} seed {} branch {}:{}:{}) but its sweep.json records no "
      "--branch-at (written before the branch options were): how it branched is not known, so "
      "sweep it again",
      who, dir, branch->scenario, branch->seed, branch->branch->at.mark, branch->branch->at.event,
      branch->branch->at.number));
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
  std::string base = failure_base_name(record.scenario, record.strategy, record.seed);
  if (record.branch) {
    const properties::BranchPoint& at = record.branch->at;
    base += file_name_safe(fmt::format("-{}-e{}-b{}", at.mark, at.event, at.number));
  }
  const std::string file = base + "-" + file_name_safe(what) + ".replay.json";
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
  reports::write_file_atomically(dir + "/summary.json", reports::json_text(summary, 2) + "\n");
  reports::write_file_atomically(dir + "/summary.md", reports::summary_markdown(summary));
  reports::write_file_atomically(dir + "/junit.xml", reports::junit_xml(summary));
  reports::write_file_atomically(
      dir + "/report.html", reports::render_sweep_html(summary, failure_timelines(dir, summary)));
  reports::SweepManifest completed = manifest;
  completed.completed = true;
  reports::write_sweep_manifest(dir + "/sweep.json", completed);
  return summary;
}

void print_summary_lines(std::ostream& out, const ordered_json& summary, const std::string& dir) {
  print_groups(out, summary, dir);
  print_claims(out, summary);
  for (const ordered_json& scenario : summary["scenarios"]) {
    fmt::print(out,
               "{}: {} runs, {} failures, {} nondeterministic, {}x virtual/wall, {} distinct "
               "histories ({}%), {} distinct per CPU-second\n",
               scenario["name"].get<std::string>(), number(scenario["runs"]),
               number(scenario["failures"]), number(scenario["nondeterministic"]),
               number(scenario["virtual_per_wall"]), number(scenario["distinct_histories"]),
               percent(scenario["distinct_fraction"]),
               number(scenario["distinct_per_cpu_second"]));
    std::string marks;
    for (const auto& [name, count] : scenario["marks"].items()) {
      marks += fmt::format(" {}={}", name, number(count));
    }
    fmt::print(out, "  marks:{}\n", marks.empty() ? " none" : marks);
    for (const ordered_json& mark : scenario["marks_never_reached"]) {
      fmt::print(out, "  mark never reached: {}\n", mark.get<std::string>());
    }
    // Each fault kind's faults: fired, could act (had a chance), acted (sim/'s effect records).
    std::string faults;
    const ordered_json effects = scenario.value("fault_effects", ordered_json::object());
    for (const auto& [kind, effect] : effects.items()) {
      faults += fmt::format(" {}={}/{}/{}", kind, number(effect["fired"]),
                            number(effect["could_act"]), number(effect["acted"]));
    }
    if (!faults.empty()) fmt::print(out, "  faults (fired/could act/acted):{}\n", faults);
  }
  const ordered_json& totals = summary["totals"];
  const auto count = [&](const char* key) { return totals[key].get<std::uint64_t>(); };
  fmt::print(out,
             "sweep: {} passed, {} failed ({} violations or liveness, {} nondeterministic, {} "
             "harness errors) in {} distinct failure group{} ({} new); claims: {} met, {} "
             "unproven, {} not judged\n",
             count("passed"), count("failed") + count("nondeterministic"),
             count("failed") - count("harness_errors"), count("nondeterministic"),
             count("harness_errors"), count("groups"), count("groups") == 1 ? "" : "s",
             count("new_groups"), summary["claims"]["met"].get<std::uint64_t>(),
             summary["claims"]["missed"].get<std::uint64_t>(),
             summary["claims"]["not_enough_runs"].get<std::uint64_t>());
  fmt::print(out, "distinct histories: {} of {} runs ({}%), {} per CPU-second ({} CPU s)\n",
             count("distinct_histories"), count("runs"), percent(totals["distinct_fraction"]),
             number(totals["distinct_per_cpu_second"]), number(totals["cpu_seconds"]));
  // Every mark's hits per CPU-second of all runs (branches count only what they reached after
  // their branch point): the figure of docs/benchmarks.md "Branching from rare states".
  if (totals.contains("mark_hits")) {
    fmt::print(out, "mark hits per CPU-second ({} branch runs):\n",
               totals["branch_runs"].get<std::uint64_t>());
    for (const auto& [name, hits] : totals["mark_hits"].items()) {
      fmt::print(out, "  {:<32} {:>8} hits  {:>10.2f} per CPU-second\n", name, number(hits),
                 totals["mark_hits_per_cpu_second"][name].get<double>());
    }
  }
}

FailOn parse_fail_on(const std::string& text) {
  if (text == "any") return FailOn::kAny;
  if (text == "new") return FailOn::kNew;
  throw UsageError(fmt::format("--fail-on: expected new or any, got '{}'", text));
}

int sweep_exit_code(const std::vector<reports::RunRecord>& records, FailOn fail_on,
                    const reports::KnownSignatures* known, std::uint64_t missed_claims) {
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
    if (fail_on == FailOn::kNew && known != nullptr &&
        known->contains(reports::record_signature(record))) {
      continue;  // a known bug, still open: it does not hide a new one, nor fail the sweep
    }
    int code = kExitPass;
    if (record.status == "violation") code = kExitViolation;
    if (record.status == "liveness") code = kExitLiveness;
    if (record.status == "harness-error") code = kExitHarnessError;
    if (record.passed() && record.nondeterministic()) code = kExitNondeterminism;
    if (rank(code) > rank(worst)) worst = code;
  }
  if (worst == kExitPass && missed_claims > 0) return kExitUnproven;
  return worst;
}

}  // namespace fencesim::cli
