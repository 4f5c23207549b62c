#pragma once
// How a run is shown: the configuration line (printed first, so a log always says what ran), a
// short human summary, or one JSON object for tools.
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/execute.h"

namespace fencesim::cli {

// "scenario=NAME seed=N strategy=S [sink-double=D] fencesim=VERSION"
std::string configuration_line(const properties::RunRequest& request);

// The command that replays a replay file, quoted for a POSIX shell when needed.
std::string replay_command(const std::string& path);

void print_summary(std::ostream& out, const TimedRun& run);

// The run as one JSON object; `replay_file` is null unless one was written.
nlohmann::ordered_json run_json(const TimedRun& run, const std::string& replay_file);

}  // namespace fencesim::cli
