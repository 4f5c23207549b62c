#include "reports/replay_file.h"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "scenarios/one_line.h"
#include "sim/random.h"
#include "scenarios/spec.h"
#include "reports/json_text.h"

namespace fencesim::reports {

using nlohmann::json;
using nlohmann::ordered_json;

std::string_view fencesim_version() {
  return FENCESIM_VERSION;
}

std::string_view strategy_name(sim::Strategy strategy) {
  return strategy == sim::Strategy::kPct ? "pct" : "random";
}

std::string strategy_name(const properties::RunRequest& request) {
  if (request.strategy != sim::Strategy::kPct || request.pct_change_points == 3) {
    return std::string(strategy_name(request.strategy));
  }
  return fmt::format("pct-d{}", request.pct_change_points);
}

std::optional<NamedStrategy> named_strategy(std::string_view name) {
  if (name == "random") return NamedStrategy{sim::Strategy::kRandomWalk, 3};
  if (name == "pct") return NamedStrategy{sim::Strategy::kPct, 3};
  // "pct-dN": one digit, so that every depth has exactly one name.
  if (name.size() == 6 && name.substr(0, 5) == "pct-d" && name[5] >= '0' && name[5] <= '9' &&
      name != "pct-d3") {
    return NamedStrategy{sim::Strategy::kPct, name[5] - '0'};
  }
  return std::nullopt;
}

std::optional<sim::Strategy> strategy_from_name(std::string_view name) {
  if (const auto named = named_strategy(name)) return named->strategy;
  return std::nullopt;
}

void apply_strategy(std::string_view name, properties::RunRequest& request) {
  const NamedStrategy named = named_strategy(name).value();
  request.strategy = named.strategy;
  request.pct_change_points = named.pct_change_points;
}

std::string drawn_strategy(std::uint64_t seed) {
  // Its own stream: the world's streams (scheduler, network, faults) are the seed's as before.
  sim::Rng rng = sim::derive_stream(seed, "sweep-strategy");
  if (rng.below(2) == 0) return "random";
  // PCT finds a bug of depth d with d - 1 change points; 0..4 covers the shallow bugs, which are
  // the likely ones, and makes the runs of one seed range differ in depth too.
  const int change_points = static_cast<int>(rng.below(5));
  properties::RunRequest request;
  request.strategy = sim::Strategy::kPct;
  request.pct_change_points = change_points;
  return strategy_name(request);
}

std::optional<runtime::EventKind> event_kind_from_string(std::string_view name) {
  return scenarios::event_kind_from_name(name);
}

std::string hash_hex(std::uint64_t hash) {
  return fmt::format("{:016x}", hash);
}

ReplayFile make_replay_file(const properties::RunReport& report) {
  ReplayFile file;
  file.fencesim_version = std::string(fencesim_version());
  file.scenario = report.request.scenario;
  file.seed = report.request.seed;
  file.strategy = strategy_name(report.request);
  file.sink_double = report.request.sink_double;
  file.plan = report.plan;
  file.branch = report.request.branch;
  file.expected_status = std::string(properties::to_string(report.status));
  file.expected_history_hash = hash_hex(report.history_hash);
  file.history_hash_scheme = report.request.history_hash_scheme;
  for (const properties::Violation& violation : report.violations) {
    file.violations.push_back(RecordedViolation{violation.invariant, violation.message});
  }
  return file;
}

ReplayFile make_replay_file(const properties::RunReport& report,
                            const scenarios::ScenarioRegistry& registry) {
  ReplayFile file = make_replay_file(report);
  if (const scenarios::Scenario* scenario = registry.find(report.request.scenario)) {
    file.spec = scenario->spec_toml;
  }
  return file;
}

properties::RunRequest run_request(const ReplayFile& file) {
  properties::RunRequest request;
  request.scenario = file.scenario;
  request.seed = file.seed;
  if (named_strategy(file.strategy)) apply_strategy(file.strategy, request);
  request.sink_double = file.sink_double;
  request.plan_override = file.plan;
  request.branch = file.branch;
  request.history_hash_scheme = file.history_hash_scheme;
  return request;
}

bool fails_as_recorded(const ReplayFile& file, const properties::RunReport& report) {
  if (report.status == properties::RunStatus::kPass) return false;
  if (properties::to_string(report.status) != file.expected_status) return false;
  if (report.status != properties::RunStatus::kViolation || file.violations.empty()) return true;
  return !report.violations.empty() &&
         report.violations.front().invariant == file.violations.front().invariant;
}

scenarios::ScenarioRegistry registry_for(const scenarios::ScenarioRegistry& registry,
                                         const ReplayFile& file, const std::string& path) {
  scenarios::ScenarioRegistry out = registry;
  if (file.spec.empty()) return out;
  try {
    const std::string name =
        scenarios::register_spec_text(out, file.spec, fmt::format("{} (field 'spec')", path));
    if (name != file.scenario) {
      throw ReplayFileError(scenarios::one_line(
          fmt::format("replay file '{}': field 'spec' registers scenario '{}', not '{}'", path,
                      name, file.scenario)));
    }
  } catch (const scenarios::SpecError& error) {
    throw ReplayFileError(
        scenarios::one_line(fmt::format("replay file '{}': {}", path, error.what())));
  }
  return out;
}

ordered_json fault_to_json(const sim::Fault& fault) {
  ordered_json out = ordered_json::object();
  out["kind"] = std::string(to_string(fault.kind));
  out["node"] = fault.node;
  if (!fault.peer.empty()) out["peer"] = fault.peer;
  out["at_ns"] = fault.at_ns;
  if (fault.trigger) {
    out["trigger"] = ordered_json{{"event", std::string(runtime::to_string(fault.trigger->event))},
                                  {"occurrence", fault.trigger->occurrence},
                                  {"delay_ns", fault.trigger->delay_ns}};
    if (!fault.trigger->at_node.empty()) out["trigger"]["at_node"] = fault.trigger->at_node;
    // Written only for an aimed fault: replay files of the faults before aims read as they did.
    const sim::Trigger& t = *fault.trigger;
    if (t.aim != sim::Aim::kEvent) out["trigger"]["aim"] = std::string(sim::to_string(t.aim));
    if (t.aim == sim::Aim::kInFlight) out["trigger"]["within_permille"] = t.within_permille;
    if (t.until != sim::Aim::kEvent) {
      out["trigger"]["until"] = std::string(sim::to_string(t.until));
      out["trigger"]["until_delay_ns"] = t.until_delay_ns;
    }
  }
  out["duration_ns"] = fault.duration_ns;
  out["amount"] = fault.amount;
  out["probability"] = fault.probability;
  return out;
}

ordered_json fault_plan_to_json(const sim::FaultPlan& plan) {
  ordered_json out = ordered_json::array();
  for (const sim::Fault& fault : plan.faults) out.push_back(fault_to_json(fault));
  return out;
}

ordered_json to_json(const ReplayFile& file) {
  ordered_json violations = ordered_json::array();
  for (const RecordedViolation& violation : file.violations) {
    violations.push_back(
        ordered_json{{"invariant", violation.invariant}, {"message", violation.message}});
  }
  ordered_json out{{"format", file.format},
                   {"version", file.version},
                   {"fencesim_version", file.fencesim_version},
                   {"scenario", file.scenario},
                   {"seed", file.seed},
                   {"strategy", file.strategy},
                   {"sink_double", file.sink_double},
                   {"fault_plan", fault_plan_to_json(file.plan)},
                   {"expected_status", file.expected_status},
                   {"expected_history_hash", file.expected_history_hash},
                   {"history_hash_scheme", static_cast<int>(file.history_hash_scheme)},
                   {"violations", violations}};
  // Only for a spec's run: a built-in scenario's file stays as it always was.
  if (!file.spec.empty()) out["spec"] = file.spec;
  if (!file.signature.empty()) out["signature"] = file.signature;
  if (file.choices) out["choices"] = *file.choices;
  if (file.branch) {
    out["branch"] = ordered_json{{"mark", file.branch->mark},
                                 {"event", file.branch->event},
                                 {"number", file.branch->number}};
  }
  if (file.history) {
    out["history"] = ordered_json{{"events", file.history->events},
                                  {"digest", file.history->digest},
                                  {"faults_fired", file.history->faults_fired}};
  }
  return out;
}

namespace {

// Reads typed fields out of a JSON document, naming the field (as a path) in every error.
class FieldReader {
 public:
  explicit FieldReader(std::string_view source) : source_(source) {}

  // One line whatever the file holds: quoted control characters are escaped.
  [[noreturn]] void fail(std::string_view what) const {
    throw ReplayFileError(scenarios::one_line(fmt::format("replay file '{}': {}", source_, what)));
  }

  // Null when absent and not required.
  const json* find(const json& object, const std::string& path, bool required) const {
    const std::string key = path.substr(path.find_last_of('.') + 1);
    auto it = object.find(key);
    if (it == object.end() || (!required && it->is_null())) {
      if (required) fail(fmt::format("field '{}' is missing", path));
      return nullptr;
    }
    return &*it;
  }

  std::string string(const json& object, const std::string& path, bool required = true) const {
    const json* value = find(object, path, required);
    if (value == nullptr) return {};
    if (!value->is_string()) fail(fmt::format("field '{}' must be a string", path));
    return value->get<std::string>();
  }

  std::int64_t int64(const json& object, const std::string& path, std::int64_t fallback,
                     std::int64_t min = std::numeric_limits<std::int64_t>::min()) const {
    const json* value = find(object, path, false);
    if (value == nullptr) return fallback;
    std::int64_t out = 0;
    if (value->is_number_integer() && !value->is_number_unsigned()) {
      out = value->get<std::int64_t>();
    } else if (value->is_number_unsigned() &&
               value->get<std::uint64_t>() <=
                   static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      out = static_cast<std::int64_t>(value->get<std::uint64_t>());
    } else {
      fail(fmt::format("field '{}' must be a 64-bit integer", path));
    }
    if (out < min) fail(fmt::format("field '{}' must be at least {}", path, min));
    return out;
  }

  std::uint64_t seed(const json& object) const {
    const json& value = *find(object, "seed", true);
    if (value.is_number_unsigned()) return value.get<std::uint64_t>();
    // Negative integers, and integers too large for 64 bits (which JSON parsers read as floats).
    const bool out_of_range =
        value.is_number_integer() ||
        (value.is_number_float() && (value.get<double>() < 0 || value.get<double>() >= 0x1p64));
    if (out_of_range) fail("field 'seed' is out of range (0..18446744073709551615)");
    fail("field 'seed' must be an unsigned 64-bit integer");
  }

 private:
  std::string_view source_;
};

sim::Trigger read_trigger(const FieldReader& reader, const json& object, const std::string& path) {
  if (!object.is_object()) reader.fail(fmt::format("field '{}' must be an object", path));
  const std::string event_name = reader.string(object, path + ".event");
  const auto event = event_kind_from_string(event_name);
  if (!event) {
    reader.fail(fmt::format("field '{}.event': unknown event '{}'", path, event_name));
  }
  sim::Trigger trigger{};
  trigger.event = *event;
  const std::int64_t occurrence = reader.int64(object, path + ".occurrence", 1, 1);
  if (occurrence > std::numeric_limits<int>::max()) {
    reader.fail(fmt::format("field '{}.occurrence' is too large", path));
  }
  trigger.occurrence = static_cast<int>(occurrence);
  trigger.at_node = reader.string(object, path + ".at_node", false);
  const auto read_aim = [&](const std::string& field, bool until) {
    const std::string name = reader.string(object, path + "." + field, false);
    if (name.empty()) return sim::Aim::kEvent;
    const std::optional<sim::Aim> aim = sim::aim_from_string(name);
    if (!aim || *aim == sim::Aim::kEvent || (until && *aim == sim::Aim::kInFlight)) {
      reader.fail(fmt::format("field '{}.{}': unknown deadline '{}'", path, field, name));
    }
    return *aim;
  };
  trigger.aim = read_aim("aim", false);
  trigger.until = read_aim("until", true);
  // Aimed at a deadline, the delay may be negative (before it).
  trigger.delay_ns = reader.int64(
      object, path + ".delay_ns", 0,
      trigger.aim == sim::Aim::kEvent ? 0 : std::numeric_limits<std::int64_t>::min());
  if (trigger.aim == sim::Aim::kInFlight) {
    const std::int64_t within = reader.int64(object, path + ".within_permille", 500, 1);
    if (within > 999) reader.fail(fmt::format("field '{}.within_permille' must be 1..999", path));
    trigger.within_permille = static_cast<int>(within);
  }
  if (trigger.until != sim::Aim::kEvent) {
    trigger.until_delay_ns = reader.int64(object, path + ".until_delay_ns", 0);
  }
  return trigger;
}

sim::Fault read_fault(const FieldReader& reader, const json& object, const std::string& path) {
  if (!object.is_object()) reader.fail(fmt::format("field '{}' must be an object", path));
  const std::string kind_name = reader.string(object, path + ".kind");
  const auto kind = sim::fault_kind_from_string(kind_name);
  if (!kind) reader.fail(fmt::format("field '{}.kind': unknown fault kind '{}'", path, kind_name));
  sim::Fault fault{};
  fault.kind = *kind;
  fault.node = reader.string(object, path + ".node");
  fault.peer = reader.string(object, path + ".peer", false);
  fault.at_ns = reader.int64(object, path + ".at_ns", 0, 0);
  if (const json* trigger = reader.find(object, path + ".trigger", false)) {
    fault.trigger = read_trigger(reader, *trigger, path + ".trigger");
  }
  fault.duration_ns = reader.int64(object, path + ".duration_ns", 0, 0);
  fault.amount = reader.int64(object, path + ".amount", 0);
  if (const json* probability = reader.find(object, path + ".probability", false)) {
    if (!probability->is_number()) {
      reader.fail(fmt::format("field '{}.probability' must be a number", path));
    }
    fault.probability = probability->get<double>();
    if (!(fault.probability >= 0 && fault.probability <= 1)) {
      reader.fail(fmt::format("field '{}.probability' must be within 0..1", path));
    }
  }
  return fault;
}

// The file's schema version: any from kOldestReplayVersion to kReplayVersion reads (older ones
// are migrated field by field below); a newer one names the fencesim needed.
int check_header(const FieldReader& reader, const json& document, std::string_view source) {
  if (!document.is_object()) reader.fail("not a JSON object");
  auto format = document.find("format");
  if (format == document.end() || !format->is_string() || *format != kReplayFormat) {
    reader.fail(
        fmt::format("not a fencesim replay file (field 'format' must be '{}')", kReplayFormat));
  }
  const json& version = *reader.find(document, "version", true);
  if (!version.is_number_integer()) reader.fail("field 'version' must be an integer");
  const bool known = version >= kOldestReplayVersion && version <= kReplayVersion;
  if (!known) {
    throw ReplayFileError(scenarios::one_line(fmt::format(
        "replay file '{}' has format version {}; this fencesim ({}) reads "
        "versions {} to {}{}",
        source, version.dump(), fencesim_version(), kOldestReplayVersion, kReplayVersion,
        version > kReplayVersion ? " (a newer fencesim wrote it)" : "")));
  }
  return version.get<int>();
}

// Schema 2: the history record. Its digest must have 4 hex digits an event. A record with another
// number of fault counts than the plan has faults describes another plan (the file's plan was
// edited by hand, as when shrinking is tried on a padded plan): it is dropped, not refused, and
// the file reads as one without a history record.
std::optional<HistoryRecord> read_history(const FieldReader& reader, const json& object,
                                          std::size_t faults) {
  if (!object.is_object()) reader.fail("field 'history' must be an object");
  HistoryRecord record;
  const json& events = *reader.find(object, "history.events", true);
  if (!events.is_number_unsigned()) {
    reader.fail("field 'history.events' must be an unsigned integer");
  }
  record.events = events.get<std::uint64_t>();
  record.digest = reader.string(object, "history.digest");
  const bool hex = record.digest.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos;
  if (!hex || record.digest.size() / kDigestHexPerEvent != record.events ||
      record.digest.size() % kDigestHexPerEvent != 0) {
    reader.fail(fmt::format("field 'history.digest' must be {} hex digits an event ({} events)",
                            kDigestHexPerEvent, record.events));
  }
  for (char& c : record.digest) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const json& fired = *reader.find(object, "history.faults_fired", true);
  if (!fired.is_array()) reader.fail("field 'history.faults_fired' must be an array");
  for (const json& count : fired) {
    if (!count.is_number_unsigned()) {
      reader.fail("field 'history.faults_fired' must hold unsigned integers");
    }
    record.faults_fired.push_back(count.get<std::uint64_t>());
  }
  if (record.faults_fired.size() != faults) return std::nullopt;
  return record;
}

std::string read_hash(const FieldReader& reader, const json& document) {
  std::string hash = reader.string(document, "expected_history_hash");
  const bool hex =
      hash.size() == 16 && hash.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos;
  if (!hex) reader.fail("field 'expected_history_hash' must be 16 hex digits");
  for (char& c : hash) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return hash;
}

std::string read_status(const FieldReader& reader, const json& document) {
  std::string status = reader.string(document, "expected_status");
  for (auto value : {properties::RunStatus::kPass, properties::RunStatus::kViolation,
                     properties::RunStatus::kLiveness, properties::RunStatus::kHarnessError}) {
    if (properties::to_string(value) == status) return status;
  }
  reader.fail(fmt::format("field 'expected_status': unknown status '{}'", status));
}

const json& read_array(const FieldReader& reader, const json& document, const std::string& path) {
  const json& value = *reader.find(document, path, true);
  if (!value.is_array()) reader.fail(fmt::format("field '{}' must be an array", path));
  return value;
}

// How the recorded hash wrote names: 1 (their bytes) or 2 (their XXH3), sim::HistoryHashScheme.
sim::HistoryHashScheme read_hash_scheme(const FieldReader& reader, const json& document) {
  const json& value = *reader.find(document, "history_hash_scheme", true);
  if (value.is_number_integer()) {
    const std::int64_t scheme = value.get<std::int64_t>();
    if (scheme == static_cast<int>(sim::HistoryHashScheme::kNameBytes)) {
      return sim::HistoryHashScheme::kNameBytes;
    }
    if (scheme == static_cast<int>(sim::HistoryHashScheme::kNameHashes)) {
      return sim::HistoryHashScheme::kNameHashes;
    }
  }
  reader.fail(fmt::format(
      "field 'history_hash_scheme' must be 1 (names' bytes) or 2 (names' hashes), not {}",
      value.dump()));
}

}  // namespace

ReplayFile replay_file_from_json(const json& document, std::string_view source) {
  const FieldReader reader(source);
  const int version = check_header(reader, document, source);
  ReplayFile file;
  file.migrated_from = version == kReplayVersion ? 0 : version;
  file.fencesim_version = reader.string(document, "fencesim_version");
  file.scenario = reader.string(document, "scenario");
  file.seed = reader.seed(document);
  file.strategy = reader.string(document, "strategy");
  if (!strategy_from_name(file.strategy)) {
    reader.fail(fmt::format("field 'strategy': unknown strategy '{}' (expected random or pct)",
                            file.strategy));
  }
  file.sink_double = reader.string(document, "sink_double", false);
  const json& faults = read_array(reader, document, "fault_plan");
  for (std::size_t i = 0; i < faults.size(); ++i) {
    file.plan.faults.push_back(read_fault(reader, faults[i], fmt::format("fault_plan[{}]", i)));
  }
  file.expected_status = read_status(reader, document);
  file.expected_history_hash = read_hash(reader, document);
  // Versions 1 to 3 hashed names by their bytes: migrated, the file says so.
  file.history_hash_scheme = sim::HistoryHashScheme::kNameBytes;
  if (version >= 4) file.history_hash_scheme = read_hash_scheme(reader, document);
  if (document.contains("violations")) {
    const json& violations = read_array(reader, document, "violations");
    for (std::size_t i = 0; i < violations.size(); ++i) {
      const std::string path = fmt::format("violations[{}]", i);
      if (!violations[i].is_object())
        reader.fail(fmt::format("field '{}' must be an object", path));
      file.violations.push_back(RecordedViolation{reader.string(violations[i], path + ".invariant"),
                                                  reader.string(violations[i], path + ".message")});
    }
  }
  file.spec = reader.string(document, "spec", false);
  file.signature = reader.string(document, "signature", false);
  if (const json* choices = reader.find(document, "choices", false)) {
    if (!choices->is_array()) reader.fail("field 'choices' must be an array");
    std::vector<std::uint32_t> log;
    for (std::size_t i = 0; i < choices->size(); ++i) {
      const json& choice = (*choices)[i];
      // A JSON reader keeps a small non-negative number as a signed integer: judge the value.
      if (!choice.is_number_integer() || choice.get<std::int64_t>() < 0 ||
          choice.get<std::int64_t>() > 0xffffffffll) {
        reader.fail(fmt::format("field 'choices[{}]' must be an index (0..4294967295)", i));
      }
      log.push_back(choice.get<std::uint32_t>());
    }
    file.choices = std::move(log);
  }
  // Version 1 had no history record: migrated, the file simply has none.
  if (version >= 2) {
    if (const json* history = reader.find(document, "history", false)) {
      file.history = read_history(reader, *history, file.plan.faults.size());
    }
  }
  // Versions 1 and 2 had no branches: migrated, the file is an ordinary run.
  if (version >= 3) {
    if (const json* branch = reader.find(document, "branch", false)) {
      if (!branch->is_object()) reader.fail("field 'branch' must be an object");
      const auto count = [&](const std::string& path) {
        const json& value = *reader.find(*branch, path, true);
        // A JSON reader keeps a small non-negative number as a signed integer: judge the value.
        if (!value.is_number_integer() ||
            (!value.is_number_unsigned() && value.get<std::int64_t>() < 0)) {
          reader.fail(fmt::format("field '{}' must be an unsigned integer", path));
        }
        return value.get<std::uint64_t>();
      };
      properties::BranchPoint point;
      point.mark = reader.string(*branch, "branch.mark");
      point.event = count("branch.event");
      point.number = count("branch.number");
      if (point.mark.empty()) reader.fail("field 'branch.mark' must not be empty");
      if (point.number == 0) reader.fail("field 'branch.number' must be at least 1");
      file.branch = std::move(point);
    }
  }
  return file;
}

ReplayFile replay_file_from_text(std::string_view text, std::string_view source) {
  const json document = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) {
    throw ReplayFileError(scenarios::one_line(fmt::format("replay file '{}' is not JSON", source)));
  }
  return replay_file_from_json(document, source);
}

void write_replay_file(const std::string& path, const ReplayFile& file) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw ReplayFileError(fmt::format("cannot write replay file '{}'", path));
  out << json_text(to_json(file), 2) << '\n';
  out.flush();
  if (!out) throw ReplayFileError(fmt::format("cannot write replay file '{}'", path));
}

ReplayFile read_replay_file(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    throw ReplayFileError(fmt::format("replay file '{}' not found", path));
  }
  if (std::filesystem::is_directory(path, error)) {
    throw ReplayFileError(fmt::format("replay file '{}' is a directory", path));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) throw ReplayFileError(fmt::format("cannot read replay file '{}'", path));
  std::stringstream text;
  text << in.rdbuf();
  return replay_file_from_text(text.str(), path);
}

}  // namespace fencesim::reports
