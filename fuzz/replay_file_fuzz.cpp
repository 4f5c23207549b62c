// Replay files (reports/replay_file.h), any schema version: text is read (and migrated) or refused
// with a ReplayFileError of one line. What reads writes back and reads again as the same file.
#include <string>

#include "fuzz/fuzz_check.h"
#include "reports/replay_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace reports = fencesim::reports;
  reports::ReplayFile file;
  try {
    file = reports::replay_file_from_text(fencesim::fuzz::as_text(data, size), "fuzz.replay.json");
  } catch (const reports::ReplayFileError& error) {
    fencesim::fuzz::check_one_line(error);
    return 0;
  }
  fencesim::fuzz::check(file.version == reports::kReplayVersion,
                        "a file read is not in this fencesim's schema");
  // Written back, a migrated file is in the current schema: it reads as itself, unmigrated.
  file.migrated_from = 0;
  fencesim::fuzz::round_trip([&] {
    const reports::ReplayFile again =
        reports::replay_file_from_text(reports::to_json(file).dump(2), "again.replay.json");
    fencesim::fuzz::check(again == file, "a replay file read, written and read again changed");
  });
  return 0;
}
