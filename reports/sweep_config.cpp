#include "reports/sweep_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "reports/json_reader.h"
#include "reports/run_record.h"
#include "reports/json_text.h"

namespace fencesim::reports {

using nlohmann::json;
using nlohmann::ordered_json;

std::string describe_seeds(const SweepConfig& config) {
  if (config.budget_ms) {
    const std::uint64_t ms = *config.budget_ms;
    if (ms % 1000 == 0) return fmt::format("budget {}s", ms / 1000);
    return fmt::format("budget {}ms", ms);
  }
  return fmt::format("{}..{}", config.seeds_first.value_or(0), config.seeds_last.value_or(0));
}

ordered_json to_json(const SweepConfig& config) {
  ordered_json scenarios = ordered_json::array();
  for (const SweptScenario& scenario : config.scenarios) {
    ordered_json marks = ordered_json::array();
    for (const scenarios::MarkFloor& mark : scenario.marks) marks.push_back(mark.text());
    ordered_json swept{
        {"name", scenario.name}, {"description", scenario.description}, {"marks", marks}};
    if (!scenario.spec.empty()) swept["spec"] = scenario.spec;
    scenarios.push_back(std::move(swept));
  }
  ordered_json seeds;
  if (config.seeds_first && config.seeds_last) {
    seeds = ordered_json{{"first", *config.seeds_first}, {"last", *config.seeds_last}};
  }
  return ordered_json{{"scenarios", scenarios},
                      {"seeds", seeds},
                      {"budget_ms", config.budget_ms ? ordered_json(*config.budget_ms) : nullptr},
                      {"strategies", config.strategies},
                      {"determinism_every", config.determinism_every},
                      {"sink_double", config.sink_double},
                      {"branch_at", config.branch_marks},
                      {"branches", config.branches},
                      {"history_hash_scheme", static_cast<int>(config.history_hash_scheme)}};
}

bool KnownSignatures::contains(const std::string& signature) const {
  return std::binary_search(signatures.begin(), signatures.end(), signature);
}

void KnownSignatures::add(const KnownSignatures& other) {
  for (const std::string& source : other.sources) {
    if (std::find(sources.begin(), sources.end(), source) == sources.end()) {
      sources.push_back(source);
    }
  }
  signatures.insert(signatures.end(), other.signatures.begin(), other.signatures.end());
  std::sort(signatures.begin(), signatures.end());
  signatures.erase(std::unique(signatures.begin(), signatures.end()), signatures.end());
}

ordered_json to_json(const KnownSignatures& known) {
  return ordered_json{{"sources", known.sources}, {"signatures", known.signatures}};
}

ordered_json to_json(const SweepManifest& manifest) {
  return ordered_json{{"format", kSweepFormat},
                      {"version", kSweepVersion},
                      {"fencesim_version", manifest.fencesim_version},
                      {"configuration", to_json(manifest.configuration)},
                      {"shards", ordered_json{{"count", manifest.shard_count},
                                              {"indices", manifest.shard_indices}}},
                      {"completed", manifest.completed},
                      {"wall_seconds", manifest.wall_seconds},
                      {"runs_cut_by_budget", manifest.runs_cut_by_budget},
                      {"known", manifest.known ? to_json(*manifest.known) : ordered_json()},
                      {"interrupted", manifest.interrupted ? to_json(*manifest.interrupted)
                                                           : ordered_json()}};
}

namespace {

std::vector<std::string> strings(const JsonReader& reader, const json& object,
                                 std::string_view key) {
  std::vector<std::string> out;
  for (const json& item : reader.array(object, key)) {
    if (!item.is_string()) reader.fail(fmt::format("field '{}' must hold strings", key));
    out.push_back(item.get<std::string>());
  }
  return out;
}

// A sweep.json's marks: "name" or "name >= 2%" each (older files have names only).
std::vector<scenarios::MarkFloor> mark_floors(const JsonReader& reader, const json& scenario) {
  std::vector<scenarios::MarkFloor> floors;
  for (const std::string& text : strings(reader, scenario, "marks")) {
    try {
      floors.push_back(scenarios::parse_mark_floor(text));
    } catch (const std::invalid_argument& error) {
      reader.fail(fmt::format("field 'marks': {}", error.what()));
    }
  }
  return floors;
}

SweepConfig config_from_json(const JsonReader& reader, const json& object) {
  SweepConfig config;
  for (const json& scenario : reader.array(object, "scenarios")) {
    reader.expect_object(scenario, "each of 'scenarios'");
    config.scenarios.push_back(SweptScenario{
        reader.string(scenario, "name"), reader.string(scenario, "description"),
        mark_floors(reader, scenario),
        scenario.contains("spec") ? reader.string(scenario, "spec") : std::string()});
  }
  if (!reader.is_null(object, "seeds")) {
    const json& seeds = reader.object(object, "seeds");
    config.seeds_first = reader.unsigned_integer(seeds, "first");
    config.seeds_last = reader.unsigned_integer(seeds, "last");
  }
  if (!reader.is_null(object, "budget_ms")) {
    config.budget_ms = reader.unsigned_integer(object, "budget_ms");
  }
  if (config.budget_ms.has_value() == config.seeds_first.has_value()) {
    reader.fail("exactly one of 'seeds' and 'budget_ms' must be set");
  }
  config.strategies = strings(reader, object, "strategies");
  config.determinism_every = reader.unsigned_integer(object, "determinism_every");
  config.sink_double = reader.string(object, "sink_double");
  // Absent from the sweep.json of a fencesim older than recording them: that sweep is read as not
  // branching (a merge then refuses it beside a branching shard rather than guess).
  if (object.contains("branch_at")) {
    for (std::string& mark : strings(reader, object, "branch_at")) {
      if (!config.branch_marks.insert(std::move(mark)).second) {
        reader.fail("field 'branch_at' names a mark twice");
      }
    }
  }
  if (object.contains("branches")) config.branches = reader.unsigned_integer(object, "branches");
  if (config.branch_marks.empty() != (config.branches == 0)) {
    reader.fail("fields 'branch_at' and 'branches': both set (a branching sweep) or neither");
  }
  // Absent from the sweep.json of a fencesim older than the schemes: its runs wrote names' bytes.
  config.history_hash_scheme = sim::HistoryHashScheme::kNameBytes;
  if (object.contains("history_hash_scheme")) {
    const std::uint64_t scheme = reader.unsigned_integer(object, "history_hash_scheme");
    if (scheme == static_cast<std::uint64_t>(sim::HistoryHashScheme::kNameHashes)) {
      config.history_hash_scheme = sim::HistoryHashScheme::kNameHashes;
    } else if (scheme != static_cast<std::uint64_t>(sim::HistoryHashScheme::kNameBytes)) {
      reader.fail(fmt::format(
          "field 'history_hash_scheme' must be 1 (names' bytes) or 2 (names' hashes), not {}",
          scheme));
    }
  }
  return config;
}

}  // namespace

SweepManifest sweep_manifest_from_json(const json& object, std::string_view source) {
  const JsonReader reader(source);
  reader.expect_object(object, "sweep.json");
  const std::string format = reader.string(object, "format");
  if (format != kSweepFormat) {
    reader.fail(fmt::format("format is '{}', expected '{}'", format, kSweepFormat));
  }
  const std::uint64_t version = reader.unsigned_integer(object, "version");
  if (version != kSweepVersion) {
    reader.fail(fmt::format("version {} is not supported (expected {})", version, kSweepVersion));
  }
  SweepManifest manifest;
  manifest.fencesim_version = reader.string(object, "fencesim_version");
  manifest.configuration = config_from_json(reader, reader.object(object, "configuration"));
  const json& shards = reader.object(object, "shards");
  manifest.shard_count = reader.unsigned_integer(shards, "count");
  for (const json& index : reader.array(shards, "indices")) {
    if (!index.is_number_unsigned()) reader.fail("field 'indices' must hold shard indices");
    manifest.shard_indices.push_back(index.get<std::uint64_t>());
  }
  manifest.completed = reader.boolean(object, "completed");
  manifest.wall_seconds = reader.number(object, "wall_seconds");
  // Absent from the sweep.json of a fencesim older than the count.
  if (object.contains("runs_cut_by_budget")) {
    manifest.runs_cut_by_budget = reader.unsigned_integer(object, "runs_cut_by_budget");
  }
  // Absent from the sweep.json of a fencesim older than --known.
  if (object.contains("known") && !reader.is_null(object, "known")) {
    const json& known = reader.object(object, "known");
    manifest.known =
        KnownSignatures{strings(reader, known, "sources"), strings(reader, known, "signatures")};
    std::sort(manifest.known->signatures.begin(), manifest.known->signatures.end());
  }
  // Absent from the sweep.json of a fencesim older than interrupted sweeps.
  if (object.contains("interrupted") && !reader.is_null(object, "interrupted")) {
    manifest.interrupted = interruption_from_json(reader, reader.field(object, "interrupted"));
  }
  return manifest;
}

void write_sweep_manifest(const std::string& path, const SweepManifest& manifest) {
  write_file_atomically(path, json_text(to_json(manifest), 2) + "\n");
}

SweepManifest read_sweep_manifest(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SweepFileError(fmt::format("cannot read '{}'", path));
  std::stringstream text;
  text << in.rdbuf();
  return sweep_manifest_from_text(text.str(), path);
}

SweepManifest sweep_manifest_from_text(std::string_view text, std::string_view source) {
  const json parsed = json::parse(text, nullptr, false);
  if (parsed.is_discarded()) throw SweepFileError(fmt::format("{}: not JSON", source));
  return sweep_manifest_from_json(parsed, source);
}

}  // namespace fencesim::reports
