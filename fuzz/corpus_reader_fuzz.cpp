// The corpus reader (cli/corpus_entry.h): what `fencesim corpus run` does to a file before its
// world runs: read and migrate it, refuse a passing run, register the spec it carries, check its
// scenario. Any text is made ready to run or refused with a ReplayFileError of one line.
#include <string>

#include "cli/corpus_entry.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace cli = fencesim::cli;
  namespace scenarios = fencesim::scenarios;
  static const scenarios::ScenarioRegistry builtin = scenarios::builtin_scenarios();
  try {
    const cli::CorpusEntry entry =
        cli::read_corpus_entry(builtin, fencesim::fuzz::as_text(data, size), "fuzz.replay.json");
    fencesim::fuzz::check(entry.run.registry().find(entry.run.request().scenario) != nullptr,
                          "a corpus entry ready to run names no registered scenario");
    fencesim::fuzz::check(entry.run.request().seed == entry.file.seed,
                          "a corpus entry runs another seed than its file's");
    fencesim::fuzz::check(entry.file.expected_status != "pass",
                          "a corpus entry records a passing run");
  } catch (const fencesim::reports::ReplayFileError& error) {
    fencesim::fuzz::check_one_line(error);
  }
  return 0;
}
