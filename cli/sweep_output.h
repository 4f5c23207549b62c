#pragma once
// A sweep's output folder (docs/reports.md): checking it before anything runs, and writing its
// reports from the sorted run records. Shared by `fencesim sweep` and `fencesim merge`, so that a
// merge of shards writes exactly what an unsharded sweep writes.
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "reports/run_record.h"
#include "reports/sweep_config.h"

namespace fencesim::cli {

// Makes `dir` ready for the results `manifest` describes, or throws UsageError (naming `option`)
// and changes nothing: a file is not a folder; a folder must be writable; a folder that is not
// empty must hold results of this very sweep (same fencesim version, configuration and shards),
// whose reports are then replaced. Anything else already there is never touched.
void prepare_output_folder(const std::string& option, const std::string& dir,
                           const reports::SweepManifest& manifest);

// Throws UsageError (one line, starting with `who`: "merge", "--resume") when `dir`'s records hold
// branch runs while its configuration says the sweep did not branch: a branching sweep whose
// sweep.json was written before --branch-at and --branches were recorded reads as plain, so a
// merge would join it with plain shards, and a resume would run its other seeds without
// branching. How it branched is not known: it can only be swept again.
void check_branching_recorded(std::string_view who, const std::string& dir,
                              const reports::SweepConfig& config,
                              const std::vector<reports::RunRecord>& records);

// Creates the corpus folder if needed; UsageError if it is a file or cannot be written.
void prepare_corpus_folder(const std::string& dir);

// Copies a failure's shrunk replay file (its original when shrinking did not finish) from the
// output folder into the corpus as <scenario>-<strategy>-<seed>-<invariant>.replay.json. A
// failure already there is not copied again. Returns the corpus file's path, or "" when nothing
// was copied; throws SweepFileError when the copy cannot be made.
std::string keep_in_corpus(const std::string& corpus, const std::string& out,
                           const reports::RunRecord& record);

// Writes runs.jsonl, run_times.jsonl, summary.json, summary.md, junit.xml, report.html and
// sweep.json into
// `dir` (sweep.json last: a folder whose sweep.json says "completed" has all its reports). Sorts
// the records and times first. Returns the summary. Throws SweepFileError.
nlohmann::ordered_json write_reports(const std::string& dir, const reports::SweepManifest& manifest,
                                     std::vector<reports::RunRecord> records,
                                     std::vector<reports::RunTime> times);

// The console's closing lines: the failure groups first (new or known, count, signature, where,
// first seed, the smallest example's replay command and timeline, with paths under `dir`), then
// one line per scenario (runs, failures, marks, marks never reached), then the totals.
void print_summary_lines(std::ostream& out, const nlohmann::ordered_json& summary,
                         const std::string& dir);

// What fails a sweep (--fail-on): any failure, or only failures of a group not in --known.
enum class FailOn { kAny, kNew };
// Throws UsageError for anything but "any" or "new".
FailOn parse_fail_on(const std::string& text);

// The exit code of a set of runs: harness error, then nondeterminism, then violation, then
// liveness, then a missed claim (`missed_claims` > 0: a mark under its floor, a fault kind that
// never acted; it fails whatever --fail-on says, since it is not a bug of the runtime but the
// harness not testing), then pass. With FailOn::kNew, runs whose signature is in `known` do not
// count.
int sweep_exit_code(const std::vector<reports::RunRecord>& records, FailOn fail_on = FailOn::kAny,
                    const reports::KnownSignatures* known = nullptr,
                    std::uint64_t missed_claims = 0);

}  // namespace fencesim::cli
