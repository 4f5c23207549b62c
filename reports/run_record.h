#pragma once
// One run of a sweep, as a line of runs.jsonl: everything the reports need about the run, and
// nothing that depends on the machine or on timing (wall time travels apart, in RunTime), so that
// the records of a sharded sweep, merged, equal those of the same sweep run in one piece.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "properties/run.h"
#include "reports/replay_file.h"

namespace fencesim::reports {

// A sweep's files that cannot be used (runs.jsonl, run_times.jsonl, sweep.json); what() is one
// line naming the file (and line) and what is wrong.
class SweepFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What a failure left in failures/: paths relative to the sweep's output folder; "" when the file
// could not be made (the reason is in `note`).
struct FailureFiles {
  std::string replay;         // the failing run, as it ran
  std::string shrunk_replay;  // the same failure with the smallest fault plan shrinking found
  std::string timeline;       // the shrunk run's timeline data (JSON)
  std::string html;           // the shrunk run's timeline, rendered
  std::string perfetto;       // the shrunk run as a Chrome trace-event file
  std::uint64_t original_faults = 0;
  std::uint64_t shrunk_faults = 0;
  std::uint64_t shrink_runs = 0;
  std::vector<std::string> shrink_removed;  // the faults shrinking removed, described
  std::string note;                         // why something is missing; "" when nothing is
  friend bool operator==(const FailureFiles&, const FailureFiles&) = default;
};

// A branch run of a sweep (--branch-at): the branch point, and the marks the branch reached after
// it (its `marks` count the shared prefix too, which its parent's record already counts).
struct BranchRecord {
  properties::BranchPoint at;
  std::map<std::string, std::uint64_t> marks_after;
  std::string replay;  // its replay file, relative to the sweep's folder; "" if not written
  friend bool operator==(const BranchRecord&, const BranchRecord&) = default;
};

struct RunRecord {
  std::string scenario;
  std::string strategy;  // "random" or "pct"
  std::uint64_t seed = 0;
  // "pass", "violation", "liveness" or "harness-error" (properties::to_string(RunStatus)).
  std::string status;
  std::string detail;        // why, for liveness and harness errors (a worker's death included)
  std::string history_hash;  // 16 hex digits; "" when the worker died before the run ended
  std::uint64_t events = 0;
  std::int64_t virtual_ns = 0;
  std::uint64_t steps = 0;
  bool within_assumptions = true;
  std::map<std::string, std::uint64_t> marks;
  std::map<std::string, std::int64_t> figures;
  // What the run's faults did, by fault kind (properties::RunReport::fault_effects); empty in the
  // files of a fencesim that did not record it.
  std::map<std::string, properties::FaultKindEffect> fault_effects;
  std::uint64_t violations = 0;
  std::optional<RecordedViolation> first_violation;
  // What groups this failure with the same bug's other failures (reports/signature.h); "" for a
  // run that passed (a nondeterministic one is grouped by record_signature).
  std::string signature;
  // The history hash of the determinism re-run (in another worker), when this run had one.
  std::optional<std::string> rerun_history_hash;
  // The status of that re-run ("" when its worker died or an exception ended it; absent from the
  // files of a fencesim that compared hashes only). A run judged two ways on one history is as
  // nondeterministic as one that ran two: an oracle that reads a pointer's order does that.
  std::optional<std::string> rerun_status;
  std::optional<FailureFiles> failure;  // set for every run whose status is not "pass"
  // Set for a branch run (its seed is its parent's); absent in older files.
  std::optional<BranchRecord> branch;
  // How many times this run branched (mark hits at which it forked its branches); 0 when the
  // sweep did not branch.
  std::uint64_t branch_points = 0;

  bool passed() const { return status == "pass"; }
  // The marks this run reached that no other record counts: a branch's after its branch point.
  const std::map<std::string, std::uint64_t>& own_marks() const {
    return branch ? branch->marks_after : marks;
  }
  bool nondeterministic() const {
    if (!rerun_history_hash) return false;
    return *rerun_history_hash != history_hash || (rerun_status && *rerun_status != status);
  }
  friend bool operator==(const RunRecord&, const RunRecord&) = default;
};

// The wall time of one run in its worker (the run itself, not shrinking or reports).
struct RunTime {
  std::string scenario;
  std::string strategy;
  std::uint64_t seed = 0;
  double wall_seconds = 0;
  // The worker thread's CPU time for the run (0 in the files of a fencesim that did not measure
  // it): the denominator of the distinct-histories-per-CPU-second figures.
  double cpu_seconds = 0;
};

// The record of a finished run (no re-run, no failure files yet).
RunRecord make_run_record(const properties::RunReport& report);

// Sorts by (scenario, strategy, seed): the order of every file a sweep writes.
void sort_records(std::vector<RunRecord>& records);
void sort_times(std::vector<RunTime>& times);

nlohmann::ordered_json to_json(const RunRecord& record);
nlohmann::ordered_json to_json(const RunTime& time);
// Checks every field; `source` names the file and line in the SweepFileError it throws.
RunRecord run_record_from_json(const nlohmann::json& json, std::string_view source);
RunTime run_time_from_json(const nlohmann::json& json, std::string_view source);

// runs.jsonl and run_times.jsonl: one compact JSON object a line. Writing throws SweepFileError
// when the file cannot be written; reading when it is missing or a line is not a valid record.
void write_run_records(const std::string& path, const std::vector<RunRecord>& records);
std::vector<RunRecord> read_run_records(const std::string& path);
void write_run_times(const std::string& path, const std::vector<RunTime>& times);
std::vector<RunTime> read_run_times(const std::string& path);
// The same readers over a file's text (what `merge` and `--known` read); `source` names it.
std::vector<RunRecord> run_records_from_text(std::string_view text, std::string_view source);
std::vector<RunTime> run_times_from_text(std::string_view text, std::string_view source);

// Writes `text` to `path` through a temporary file in the same folder and a rename, so that a
// reader (or a crash) never sees half a file. Throws SweepFileError.
void write_file_atomically(const std::string& path, std::string_view text);

}  // namespace fencesim::reports
