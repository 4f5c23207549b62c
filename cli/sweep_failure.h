#pragma once
// What a sweep's worker does with a failing run: keeps its replay file, shrinks its fault plan,
// keeps the shrunk replay file, and runs the shrunk plan once more to draw its timeline (JSON and
// HTML) and its Perfetto trace. Every file goes to <out>/failures/<scenario>-<strategy>-<seed>.*.
#include <functional>
#include <string>

#include "properties/run.h"
#include "reports/replay_history.h"
#include "reports/run_record.h"

namespace fencesim::cli {

// `text` with any character that does not belong in a file name replaced by '_'.
std::string file_name_safe(std::string text);

// "<scenario>-<strategy>-<seed>", with any character that does not belong in a file name replaced
// by '_'.
std::string failure_base_name(const std::string& scenario, const std::string& strategy,
                              std::uint64_t seed);
// The same for a run: a branch's (RunRequest::branch) adds "-<mark>-e<event>-b<number>".
std::string failure_base_name(const properties::RunRequest& request);

// Writes the failure's files. `found` is called once the original replay file is written (before
// shrinking, which takes longest), with what is known so far; it answers whether to shrink and
// draw the failure as well (a sweep does so for only the first few of a kind). A file that cannot
// be made is left out and named in FailureFiles::note; this never throws for it.
// `signature` is written into both replay files (reports/replay_file.h), and `history` (the
// failing run's, when known) into the first; the shrunk file gets its own run's.
reports::FailureFiles keep_failure(const scenarios::ScenarioRegistry& registry,
                                   const properties::RunReport& failure,
                                   const std::string& signature,
                                   const std::optional<reports::HistoryRecord>& history,
                                   const std::string& out,
                                   const std::function<bool(const reports::FailureFiles&)>& found);

}  // namespace fencesim::cli
