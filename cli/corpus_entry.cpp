#include "cli/corpus_entry.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "scenarios/one_line.h"

namespace fencesim::cli {

CorpusEntry read_corpus_entry(const scenarios::ScenarioRegistry& registry, std::string_view text,
                              const std::string& source) {
  reports::ReplayFile file = reports::replay_file_from_text(text, source);
  if (file.expected_status == properties::to_string(properties::RunStatus::kPass)) {
    throw reports::ReplayFileError(
        fmt::format("replay file '{}' records a passing run, not a failure", source));
  }
  ReplayRun run(registry, file, source);
  if (run.registry().find(file.scenario) == nullptr) {
    throw reports::ReplayFileError(scenarios::one_line(fmt::format(
        "replay file '{}': unknown scenario '{}' (try 'fencesim list')", source, file.scenario)));
  }
  return CorpusEntry{std::move(file), std::move(run)};
}

CorpusEntry read_corpus_file(const scenarios::ScenarioRegistry& registry, const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    throw reports::ReplayFileError(fmt::format("replay file '{}' is not a readable file", path));
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) throw reports::ReplayFileError(fmt::format("cannot read replay file '{}'", path));
  return read_corpus_entry(registry, text.str(), path);
}

}  // namespace fencesim::cli
