#pragma once
// The corpus reader: what `fencesim corpus run` (and the fuzz target fuzz/corpus_reader_fuzz.cpp)
// does to one file of a corpus before its world runs. The file is read and migrated from any
// older schema (reports/replay_file.h); it must record a failure; its spec, if it carries one,
// is registered; its scenario must exist. Anything that keeps it from running is one line.
#include <string>
#include <string_view>

#include "properties/run.h"
#include "reports/replay_file.h"
#include "scenarios/scenario.h"

namespace fencesim::cli {

struct CorpusEntry {
  reports::ReplayFile file;
  scenarios::ScenarioRegistry registry;  // `registry` with the file's spec registered, if any
  properties::RunRequest request;
};

// Throws reports::ReplayFileError, one line naming `source`.
CorpusEntry read_corpus_entry(const scenarios::ScenarioRegistry& registry, std::string_view text,
                              const std::string& source);

// The same for a file on disk (missing, unreadable or a folder: ReplayFileError).
CorpusEntry read_corpus_file(const scenarios::ScenarioRegistry& registry, const std::string& path);

}  // namespace fencesim::cli
