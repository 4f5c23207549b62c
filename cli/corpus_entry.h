#pragma once
// The corpus reader: what `fencesim corpus run` (and the fuzz target fuzz/corpus_reader_fuzz.cpp)
// does to one file of a corpus before its world runs. The file is read and migrated from any
// older schema (reports/replay_file.h); it must record a failure; its spec, if it carries one,
// is registered; its scenario must exist; it runs as `fencesim replay` runs it (cli/replay_run.h:
// an explored schedule by its choice log). Anything that keeps it from running is one line.
#include <string>
#include <string_view>

#include "cli/replay_run.h"
#include "reports/replay_file.h"
#include "scenarios/scenario.h"

namespace fencesim::cli {

struct CorpusEntry {
  reports::ReplayFile file;
  // The run `fencesim replay` makes of the file: its spec registered, its choice log followed.
  ReplayRun run;
};

// Throws reports::ReplayFileError, one line naming `source`.
CorpusEntry read_corpus_entry(const scenarios::ScenarioRegistry& registry, std::string_view text,
                              const std::string& source);

// The same for a file on disk (missing, unreadable or a folder: ReplayFileError).
CorpusEntry read_corpus_file(const scenarios::ScenarioRegistry& registry, const std::string& path);

}  // namespace fencesim::cli
