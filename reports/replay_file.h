#pragma once
// A replay file: everything needed to run one failing world again, bit for bit, on the same
// fencesim version: the scenario, the seed, the strategy, the sink double, and the fault plan that
// ran (so a replay does not depend on how the scenario draws its plan), with the outcome it had.
// `fencesim run` writes one on a failure; `fencesim replay FILE` reads it and checks the outcome.
// A run of a spec (scenarios/spec.h) carries the spec's TOML text in `spec`, so that the file
// replays without the spec file; files without the field (all version 1) still read.
//
// Files outlive the version that wrote them (docs/replay-files.md): `version` is the file's
// schema, and every older schema is migrated when read (version 1, before 2 added `history`,
// reads with no history record; version 2, before 3 added `branch`, reads as no branch; version 3,
// before 4 named its hash's scheme, reads as hashed by the names' bytes); `fencesim_version` says
// which fencesim wrote it and is never a reason to refuse it. On another version the replay may run differently: reports/
// replay_compare.h says how (same history; history changed, and where; a fault's trigger lost).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "properties/run.h"
#include "reports/replay_history.h"
#include "sim/fault.h"

namespace fencesim::reports {

// The version this binary was built as (CMake's PROJECT_VERSION).
std::string_view fencesim_version();

// A replay file that cannot be used; what() is one line naming the file and what is wrong.
class ReplayFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RecordedViolation {
  std::string invariant;
  std::string message;
  friend bool operator==(const RecordedViolation&, const RecordedViolation&) = default;
};

struct ReplayFile {
  std::string format = "fencesim-replay";
  int version = 4;        // the schema this struct holds (always kReplayVersion once read)
  int migrated_from = 0;  // the schema the file was written in, when older; else 0 (not written)
  std::string fencesim_version;  // the fencesim that wrote the file
  std::string scenario;
  std::uint64_t seed = 0;
  std::string strategy;     // "random" or "pct"
  std::string sink_double;  // "" or a double's name, as RunRequest::sink_double
  sim::FaultPlan plan;
  std::string expected_status;        // as properties::to_string(RunStatus)
  std::string expected_history_hash;  // 16 lower-case hex digits
  // How that hash wrote names (sim/history.h; schema 4): a replay runs with the same scheme, so
  // that the same run gives the same hash on a fencesim whose own runs hash another way. Files of
  // schemas 1 to 3 were hashed by the names' bytes.
  sim::HistoryHashScheme history_hash_scheme = sim::kCurrentHistoryHashScheme;
  std::vector<RecordedViolation> violations;
  std::string spec;  // the TOML text of the spec that registered `scenario`; "" for a built-in
  // The failure signature (reports/signature.h) of the sweep's failure this file keeps: the same
  // in its shrunk file (whose own run may point at other events), so that a corpus says which
  // bugs are known (`fencesim sweep --known`). "" when not written by a sweep; optional.
  std::string signature;
  // The choice log of a schedule found by `fencesim explore` (explore/choice_point.h): the index
  // chosen at each choice point, in order; replayed by explore::ReplayChooser. Absent (nullopt)
  // for a seeded run; optional.
  std::optional<std::vector<std::uint32_t>> choices;
  // The run's history in brief (schema 2; reports/replay_history.h): nullopt in a file migrated
  // from version 1, or written where the world was not at hand.
  std::optional<HistoryRecord> history;
  // A branch of the seed's run (schema 3; a sweep's --branch-at): the run of `seed` up to the
  // event at which it reached the mark, then reseeded for the branch's number
  // (properties::BranchPoint). nullopt for an ordinary run and in files migrated from 1 or 2.
  std::optional<properties::BranchPoint> branch;
  friend bool operator==(const ReplayFile&, const ReplayFile&) = default;
};

inline constexpr std::string_view kReplayFormat = "fencesim-replay";
inline constexpr int kReplayVersion = 4;
inline constexpr int kOldestReplayVersion = 1;

// The strategy's name on the command line and in files: "random" or "pct" (PCT with its default
// 3 change points), or "pct-dN" for PCT with N change points (0..9), as a sweep draws them.
std::string_view strategy_name(sim::Strategy strategy);
std::string strategy_name(const properties::RunRequest& request);
std::optional<sim::Strategy> strategy_from_name(std::string_view name);
// The strategy of a name, with its change points; nullopt for an unknown name.
struct NamedStrategy {
  sim::Strategy strategy = sim::Strategy::kRandomWalk;
  int pct_change_points = 3;
};
std::optional<NamedStrategy> named_strategy(std::string_view name);
// Sets the request's strategy and change points from a known name. REQUIRES: named_strategy(name).
void apply_strategy(std::string_view name, properties::RunRequest& request);
// The strategy a sweep's "drawn" mode runs `seed` under: random walk or PCT, with PCT's change
// points, drawn from the seed alone (so one run per seed, and the seed says how it ran).
std::string drawn_strategy(std::uint64_t seed);
// Inverse of runtime::to_string(EventKind); nullopt for an unknown name.
std::optional<runtime::EventKind> event_kind_from_string(std::string_view name);
// 16 lower-case hex digits.
std::string hash_hex(std::uint64_t hash);

// The replay file for a finished run, stamped with this binary's version.
ReplayFile make_replay_file(const properties::RunReport& report);
// The same, with the spec text when the run's scenario was registered from a spec: use this one
// wherever a spec's run may fail, or its replay file will not replay without the spec file.
ReplayFile make_replay_file(const properties::RunReport& report,
                            const scenarios::ScenarioRegistry& registry);

// The request that runs the file's world again: its scenario, seed, strategy, sink double, and
// its plan as the plan override.
properties::RunRequest run_request(const ReplayFile& file);

// Whether `report` fails the way the file recorded: a failing status equal to the recorded one
// and, for a violation, the same first violated invariant (the message may differ).
bool fails_as_recorded(const ReplayFile& file, const properties::RunReport& report);

// The registry a replay file runs against: `registry` itself, or a copy with the file's spec
// registered. Throws ReplayFileError naming `path` when the spec does not register.
scenarios::ScenarioRegistry registry_for(const scenarios::ScenarioRegistry& registry,
                                         const ReplayFile& file, const std::string& path);

nlohmann::ordered_json fault_to_json(const sim::Fault& fault);
nlohmann::ordered_json fault_plan_to_json(const sim::FaultPlan& plan);
nlohmann::ordered_json to_json(const ReplayFile& file);
// Checks everything (format, versions, every field's presence and type, names of fault kinds,
// events and strategies, the seed's range). `source` names the file in error messages.
ReplayFile replay_file_from_json(const nlohmann::json& json, std::string_view source);
// The same from a file's text; "not JSON" is a ReplayFileError too.
ReplayFile replay_file_from_text(std::string_view text, std::string_view source);

// Throws ReplayFileError when the file cannot be written.
void write_replay_file(const std::string& path, const ReplayFile& file);
// Throws ReplayFileError: missing file, not JSON, another format or version, a field missing or
// of the wrong type, an unknown fault kind or event name, a seed out of range.
ReplayFile read_replay_file(const std::string& path);

}  // namespace fencesim::reports
