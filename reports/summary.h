#pragma once
// summary.json: a sweep's results per scenario and its failures, as documented in docs/reports.md
// (format "fencesim-sweep-summary", version 1). A pure function of the sweep's manifest, its run
// records and their wall times, so that a merge of shards and an unsharded sweep give the same
// summary apart from the wall-time fields.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "reports/run_record.h"
#include "reports/sweep_config.h"

namespace fencesim::reports {

inline constexpr std::string_view kSummaryFormat = "fencesim-sweep-summary";
inline constexpr int kSummaryVersion = 1;

// The command that shows a failure again, to run in the output folder: `fencesim replay` of its
// replay file; for a run whose worker died (no replay file), the `fencesim run` that repeats it;
// for a nondeterministic run, `fencesim check-determinism` of its seed.
std::string failure_command(const RunRecord& record, const SweepConfig& config);

// `records` and `times` sorted (sort_records, sort_times).
nlohmann::ordered_json sweep_summary(const SweepManifest& manifest,
                                     const std::vector<RunRecord>& records,
                                     const std::vector<RunTime>& times);

}  // namespace fencesim::reports
