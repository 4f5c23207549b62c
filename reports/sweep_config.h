#pragma once
// sweep.json: what a sweep (or a merge of shards) ran, so that `fencesim merge` can refuse to mix
// results that do not belong together, and so that a folder of results says how it was made.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "reports/interruption.h"
#include "scenarios/mark_floor.h"
#include "sim/history.h"

namespace fencesim::reports {

// A scenario as the sweep saw it: specs are not registered when a merge reads the results, so the
// description and the marks the reports need travel with the results.
struct SweptScenario {
  std::string name;
  std::string description;
  // The marks a sweep of it must reach, with their floors; in sweep.json as written
  // ("takeover-mid-step >= 2%"), so that a merge judges the floors the sweep was given.
  std::vector<scenarios::MarkFloor> marks;
  // The spec file a --spec or --with-spec scenario was read from, absolute ("" for a scenario
  // written in C++, and in a sweep.json written before it was recorded): a failure with no replay
  // file (a crash, a hang, an exception out of the harness) is run again from it, since
  // `fencesim run --scenario NAME` knows no spec's name. Not compared: it says how to run a failure
  // again, not which runs the sweep made, and two shards may name one spec by two paths.
  std::string spec;
  friend bool operator==(const SweptScenario& a, const SweptScenario& b) {
    return a.name == b.name && a.description == b.description && a.marks == b.marks;
  }
};

// Everything that decides which runs a sweep makes and what they do. Two shards merge only if
// these are equal. (Jobs, timeouts and the output folder are left out: they change how fast, not
// what.)
struct SweepConfig {
  std::vector<SweptScenario> scenarios;  // in the order runs are handed out
  std::optional<std::uint64_t> seeds_first;
  std::optional<std::uint64_t> seeds_last;  // inclusive; both set for --seeds, neither for --budget
  std::optional<std::uint64_t> budget_ms;   // set for --budget
  std::vector<std::string> strategies;      // "random", "pct"
  std::uint64_t determinism_every = 10;
  std::string sink_double;
  // --branch-at and --branches (docs/explore.md): the marks a run forks at and how many branch
  // runs each hit makes. They decide which runs the sweep makes (a branching shard's runs.jsonl
  // holds branch runs a plain one never has), so shards that differ here are different sweeps.
  // Empty and 0 for a sweep that does not branch; a sweep.json written before they were recorded
  // reads so too.
  std::set<std::string> branch_marks;
  std::uint64_t branches = 0;
  // How the sweep's runs hashed their histories (sim::HistoryHashScheme): the hashes of two schemes
  // never compare, so a merge or a resume that mixed them would count each history once per scheme
  // (distinct histories doubled, a determinism re-run of another scheme "nondeterministic"). A
  // sweep hashes by this fencesim's scheme; a sweep.json without the field was written before the
  // schemes were named, when every hash wrote the names' bytes, and reads as kNameBytes.
  sim::HistoryHashScheme history_hash_scheme = sim::kCurrentHistoryHashScheme;
  friend bool operator==(const SweepConfig&, const SweepConfig&) = default;
};

inline constexpr std::string_view kSweepFormat = "fencesim-sweep";
inline constexpr int kSweepVersion = 1;

// The failure signatures (reports/signature.h) a sweep was told are known already (`--known DIR`:
// a corpus or an earlier sweep's output), so that its reports can mark each group new or known. Not
// part of the configuration: it changes how failures are judged, not which runs are made; a merge
// keeps the union of its shards'.
struct KnownSignatures {
  std::vector<std::string> sources;     // the folders they were read from, as given
  std::vector<std::string> signatures;  // sorted, each once
  bool contains(const std::string& signature) const;
  // Adds `other`'s sources and signatures (kept sorted, each once).
  void add(const KnownSignatures& other);
  friend bool operator==(const KnownSignatures&, const KnownSignatures&) = default;
};

struct SweepManifest {
  std::string fencesim_version;
  SweepConfig configuration;
  std::uint64_t shard_count = 1;
  std::vector<std::uint64_t> shard_indices;  // one for a sweep; every index for a merge
  // True once every report is written (false while the sweep runs, or if it died). An interrupted
  // sweep completes too: its reports hold what ran, and `interrupted` says what did not.
  bool completed = false;
  double wall_seconds = 0;                   // the sweep's real time, start to reports written
  // Runs the budget's hard stop killed while they ran: their seeds are missing for some scenario
  // or strategy, so a budget gave the scenarios the same seeds only when this is 0.
  std::uint64_t runs_cut_by_budget = 0;
  std::optional<KnownSignatures> known;      // set for --known; "known" in sweep.json (or null)
  std::optional<Interruption> interrupted;   // set when SIGINT or SIGTERM stopped it
};

// "1..100", or "budget 2m" (for messages and the progress line).
std::string describe_seeds(const SweepConfig& config);

nlohmann::ordered_json to_json(const SweepConfig& config);
nlohmann::ordered_json to_json(const KnownSignatures& known);
nlohmann::ordered_json to_json(const SweepManifest& manifest);
// Throws SweepFileError naming `source` and the field.
SweepManifest sweep_manifest_from_json(const nlohmann::json& json, std::string_view source);

void write_sweep_manifest(const std::string& path, const SweepManifest& manifest);
// Throws SweepFileError: missing, not JSON, another format or version, a field missing or wrong.
SweepManifest read_sweep_manifest(const std::string& path);
// The same over a file's text; `source` names it.
SweepManifest sweep_manifest_from_text(std::string_view text, std::string_view source);

}  // namespace fencesim::reports
