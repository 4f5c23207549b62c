#include "reports/run_record.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include "reports/json_reader.h"
#include "reports/json_text.h"

namespace fencesim::reports {

using nlohmann::json;
using nlohmann::ordered_json;

RunRecord make_run_record(const properties::RunReport& report) {
  RunRecord record;
  record.scenario = report.request.scenario;
  record.strategy = strategy_name(report.request);
  record.seed = report.request.seed;
  record.status = std::string(properties::to_string(report.status));
  record.detail = report.detail;
  record.history_hash = hash_hex(report.history_hash);
  record.events = report.events;
  record.virtual_ns = report.virtual_ns;
  record.steps = report.steps;
  record.within_assumptions = report.within_assumptions;
  record.marks = report.marks;
  record.figures = report.figures;
  record.fault_effects = report.fault_effects;
  record.violations = report.violations.size();
  if (!report.violations.empty()) {
    record.first_violation =
        RecordedViolation{report.violations.front().invariant, report.violations.front().message};
  }
  return record;
}

void sort_records(std::vector<RunRecord>& records) {
  // A seed's branches come after its own run, by branch point and number.
  const auto key = [](const RunRecord& r) {
    const properties::BranchPoint at = r.branch ? r.branch->at : properties::BranchPoint{};
    return std::make_tuple(std::cref(r.scenario), std::cref(r.strategy), r.seed, at.event, at.mark,
                           at.number);
  };
  std::sort(records.begin(), records.end(),
            [&](const RunRecord& a, const RunRecord& b) { return key(a) < key(b); });
}

void sort_times(std::vector<RunTime>& times) {
  std::sort(times.begin(), times.end(), [](const RunTime& a, const RunTime& b) {
    return std::tie(a.scenario, a.strategy, a.seed) < std::tie(b.scenario, b.strategy, b.seed);
  });
}

namespace {

ordered_json failure_json(const FailureFiles& files) {
  // Paths are null when the file was not made, so that a reader never opens "".
  const auto path = [](const std::string& p) {
    return p.empty() ? ordered_json() : ordered_json(p);
  };
  return ordered_json{
      {"replay_file", path(files.replay)},      {"shrunk_replay_file", path(files.shrunk_replay)},
      {"timeline_file", path(files.timeline)},  {"html", path(files.html)},
      {"perfetto_file", path(files.perfetto)},  {"original_faults", files.original_faults},
      {"shrunk_faults", files.shrunk_faults},   {"shrink_runs", files.shrink_runs},
      {"shrink_removed", files.shrink_removed}, {"note", files.note}};
}

std::string optional_path(const JsonReader& reader, const json& object, std::string_view key) {
  return reader.is_null(object, key) ? std::string() : reader.string(object, key);
}

FailureFiles failure_from_json(const JsonReader& reader, const json& object) {
  FailureFiles files;
  files.replay = optional_path(reader, object, "replay_file");
  files.shrunk_replay = optional_path(reader, object, "shrunk_replay_file");
  files.timeline = optional_path(reader, object, "timeline_file");
  files.html = optional_path(reader, object, "html");
  files.perfetto = optional_path(reader, object, "perfetto_file");
  files.original_faults = reader.unsigned_integer(object, "original_faults");
  files.shrunk_faults = reader.unsigned_integer(object, "shrunk_faults");
  files.shrink_runs = reader.unsigned_integer(object, "shrink_runs");
  for (const json& removed : reader.array(object, "shrink_removed")) {
    if (!removed.is_string()) reader.fail("field 'shrink_removed' must hold strings");
    files.shrink_removed.push_back(removed.get<std::string>());
  }
  files.note = reader.string(object, "note");
  return files;
}

void check_names(const JsonReader& reader, const std::string& strategy, const std::string& status) {
  if (!strategy_from_name(strategy)) {
    reader.fail(fmt::format("field 'strategy': unknown strategy '{}'", strategy));
  }
  static const char* const kStatuses[] = {"pass", "violation", "liveness", "harness-error"};
  if (std::find(std::begin(kStatuses), std::end(kStatuses), status) == std::end(kStatuses)) {
    reader.fail(fmt::format("field 'status': unknown status '{}'", status));
  }
}

}  // namespace

ordered_json to_json(const RunRecord& record) {
  ordered_json marks = ordered_json::object();
  for (const auto& [name, count] : record.marks) marks[name] = count;
  ordered_json figures = ordered_json::object();
  for (const auto& [name, value] : record.figures) figures[name] = value;
  ordered_json fault_effects = ordered_json::object();
  for (const auto& [kind, effect] : record.fault_effects) {
    fault_effects[kind] = ordered_json{
        {"fired", effect.fired}, {"could_act", effect.could_act}, {"acted", effect.acted}};
  }
  ordered_json first_violation;
  if (record.first_violation) {
    first_violation = ordered_json{{"invariant", record.first_violation->invariant},
                                   {"message", record.first_violation->message}};
  }
  ordered_json out{
      {"scenario", record.scenario},
      {"strategy", record.strategy},
      {"seed", record.seed},
      {"status", record.status},
      {"detail", record.detail},
      {"history_hash", record.history_hash},
      {"events", record.events},
      {"virtual_ns", record.virtual_ns},
      {"steps", record.steps},
      {"within_assumptions", record.within_assumptions},
      {"marks", marks},
      {"figures", figures},
      {"fault_effects", fault_effects},
      {"violations", record.violations},
      {"first_violation", first_violation},
      {"signature", record.signature},
      {"rerun_history_hash",
       record.rerun_history_hash ? ordered_json(*record.rerun_history_hash) : ordered_json()},
      {"rerun_status", record.rerun_status ? ordered_json(*record.rerun_status) : ordered_json()},
      {"failure", record.failure ? failure_json(*record.failure) : ordered_json()}};
  // Only in a branching sweep's records: the others stay as they always were.
  if (record.branch) {
    ordered_json after = ordered_json::object();
    for (const auto& [name, count] : record.branch->marks_after) after[name] = count;
    out["branch"] = ordered_json{{"mark", record.branch->at.mark},
                                 {"event", record.branch->at.event},
                                 {"number", record.branch->at.number},
                                 {"marks_after", after},
                                 {"replay", record.branch->replay}};
  }
  if (record.branch_points > 0) out["branch_points"] = record.branch_points;
  return out;
}

ordered_json to_json(const RunTime& time) {
  return ordered_json{{"scenario", time.scenario},
                      {"strategy", time.strategy},
                      {"seed", time.seed},
                      {"wall_seconds", time.wall_seconds},
                      {"cpu_seconds", time.cpu_seconds}};
}

RunRecord run_record_from_json(const json& object, std::string_view source) {
  const JsonReader reader(source);
  reader.expect_object(object, "a run record");
  RunRecord record;
  record.scenario = reader.string(object, "scenario");
  record.strategy = reader.string(object, "strategy");
  record.seed = reader.unsigned_integer(object, "seed");
  record.status = reader.string(object, "status");
  check_names(reader, record.strategy, record.status);
  record.detail = reader.string(object, "detail");
  record.history_hash = reader.string(object, "history_hash");
  record.events = reader.unsigned_integer(object, "events");
  record.virtual_ns = reader.integer(object, "virtual_ns");
  record.steps = reader.unsigned_integer(object, "steps");
  record.within_assumptions = reader.boolean(object, "within_assumptions");
  for (const auto& [name, count] : reader.object(object, "marks").items()) {
    if (!count.is_number_unsigned()) reader.fail(fmt::format("mark '{}' must be a count", name));
    record.marks[name] = count.get<std::uint64_t>();
  }
  for (const auto& [name, value] : reader.object(object, "figures").items()) {
    if (!value.is_number_integer())
      reader.fail(fmt::format("figure '{}' must be an integer", name));
    record.figures[name] = value.get<std::int64_t>();
  }
  // Absent from the records of a fencesim older than fault effects.
  if (object.contains("fault_effects")) {
    for (const auto& [kind, effect] : reader.object(object, "fault_effects").items()) {
      reader.expect_object(effect, fmt::format("fault effect '{}'", kind));
      record.fault_effects[kind] = properties::FaultKindEffect{
          reader.unsigned_integer(effect, "fired"), reader.unsigned_integer(effect, "could_act"),
          reader.unsigned_integer(effect, "acted")};
    }
  }
  record.violations = reader.unsigned_integer(object, "violations");
  if (!reader.is_null(object, "first_violation")) {
    const json& first = reader.object(object, "first_violation");
    record.first_violation =
        RecordedViolation{reader.string(first, "invariant"), reader.string(first, "message")};
  }
  // Absent from the records of a fencesim older than failure signatures: "" then.
  if (object.contains("signature")) record.signature = reader.string(object, "signature");
  if (!reader.is_null(object, "rerun_history_hash")) {
    record.rerun_history_hash = reader.string(object, "rerun_history_hash");
  }
  // Absent from the records of a fencesim whose re-run sent its hash alone: not compared then.
  if (object.contains("rerun_status") && !object.at("rerun_status").is_null()) {
    record.rerun_status = reader.string(object, "rerun_status");
  }
  if (!reader.is_null(object, "failure")) {
    record.failure = failure_from_json(reader, reader.object(object, "failure"));
  }
  if (object.contains("branch")) {
    const json& branch = reader.object(object, "branch");
    BranchRecord read;
    read.at.mark = reader.string(branch, "mark");
    read.at.event = reader.unsigned_integer(branch, "event");
    read.at.number = reader.unsigned_integer(branch, "number");
    for (const auto& [name, count] : reader.object(branch, "marks_after").items()) {
      if (!count.is_number_unsigned()) reader.fail(fmt::format("mark '{}' must be a count", name));
      read.marks_after[name] = count.get<std::uint64_t>();
    }
    read.replay = reader.string(branch, "replay");
    record.branch = std::move(read);
  }
  if (object.contains("branch_points")) {
    record.branch_points = reader.unsigned_integer(object, "branch_points");
  }
  return record;
}

RunTime run_time_from_json(const json& object, std::string_view source) {
  const JsonReader reader(source);
  reader.expect_object(object, "a run time");
  RunTime time;
  time.scenario = reader.string(object, "scenario");
  time.strategy = reader.string(object, "strategy");
  time.seed = reader.unsigned_integer(object, "seed");
  time.wall_seconds = reader.number(object, "wall_seconds");
  // Absent from the run times of a fencesim older than the CPU-time figures.
  if (object.contains("cpu_seconds")) time.cpu_seconds = reader.number(object, "cpu_seconds");
  return time;
}

void write_file_atomically(const std::string& path, std::string_view text) {
  // The pid keeps two processes writing into one folder (shards on a shared volume) apart.
  const std::string temporary = fmt::format("{}.tmp-{}", path, getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      throw SweepFileError(fmt::format("cannot write '{}'", path));
    }
  }
  std::error_code renamed;
  std::filesystem::rename(temporary, path, renamed);
  if (renamed) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw SweepFileError(fmt::format("cannot write '{}': {}", path, renamed.message()));
  }
}

namespace {

template <typename Item>
void write_lines(const std::string& path, const std::vector<Item>& items) {
  std::string text;
  for (const Item& item : items) {
    text += json_text(to_json(item));
    text += '\n';
  }
  write_file_atomically(path, text);
}

template <typename Item, typename Parse>
std::vector<Item> parse_lines(std::string_view text, std::string_view path, Parse parse) {
  std::vector<Item> items;
  std::uint64_t number = 1;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    const std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    const std::string source = fmt::format("{} line {}", path, number++);
    json parsed = json::parse(line, nullptr, false);
    if (parsed.is_discarded()) throw SweepFileError(fmt::format("{}: not JSON", source));
    items.push_back(parse(parsed, source));
  }
  return items;
}

template <typename Item, typename Parse>
std::vector<Item> read_lines(const std::string& path, Parse parse) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SweepFileError(fmt::format("cannot read '{}'", path));
  std::stringstream text;
  text << in.rdbuf();
  return parse_lines<Item>(text.str(), path, parse);
}

}  // namespace

void write_run_records(const std::string& path, const std::vector<RunRecord>& records) {
  write_lines(path, records);
}

std::vector<RunRecord> read_run_records(const std::string& path) {
  return read_lines<RunRecord>(path, run_record_from_json);
}

void write_run_times(const std::string& path, const std::vector<RunTime>& times) {
  write_lines(path, times);
}

std::vector<RunTime> read_run_times(const std::string& path) {
  return read_lines<RunTime>(path, run_time_from_json);
}

std::vector<RunRecord> run_records_from_text(std::string_view text, std::string_view source) {
  return parse_lines<RunRecord>(text, source, run_record_from_json);
}

std::vector<RunTime> run_times_from_text(std::string_view text, std::string_view source) {
  return parse_lines<RunTime>(text, source, run_time_from_json);
}

}  // namespace fencesim::reports
