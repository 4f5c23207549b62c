// What `fencesim merge` reads from each shard's folder (cli/merge_command.cpp): sweep.json (the
// manifest), runs.jsonl and run_times.jsonl. The first byte picks the file; the rest is its text.
// It is read or refused with a SweepFileError of one line; what reads writes back and reads again
// as the same.
#include <string>

#include "fuzz/fuzz_check.h"
#include "reports/run_record.h"
#include "reports/sweep_config.h"

namespace {

namespace reports = fencesim::reports;
using fencesim::fuzz::check;

void manifest(std::string_view text) {
  const reports::SweepManifest read = reports::sweep_manifest_from_text(text, "sweep.json");
  fencesim::fuzz::round_trip([&] {
    const reports::SweepManifest again =
        reports::sweep_manifest_from_text(reports::to_json(read).dump(2), "again.json");
    check(reports::to_json(again) == reports::to_json(read), "a manifest changed on a round trip");
  });
}

void records(std::string_view text) {
  const std::vector<reports::RunRecord> read = reports::run_records_from_text(text, "runs.jsonl");
  fencesim::fuzz::round_trip([&] {
    for (const reports::RunRecord& record : read) {
      const reports::RunRecord again = reports::run_record_from_json(
          nlohmann::json::parse(reports::to_json(record).dump()), "again");
      check(again == record, "a run record changed on a round trip");
    }
  });
}

void times(std::string_view text) {
  const std::vector<reports::RunTime> read = reports::run_times_from_text(text, "run_times.jsonl");
  fencesim::fuzz::round_trip([&] {
    for (const reports::RunTime& time : read) {
      const reports::RunTime again = reports::run_time_from_json(
          nlohmann::json::parse(reports::to_json(time).dump()), "again");
      check(reports::to_json(again) == reports::to_json(time),
            "a run time changed on a round trip");
    }
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text = fencesim::fuzz::as_text(data + 1, size - 1);
  try {
    switch (data[0] % 3) {
      case 0:
        manifest(text);
        break;
      case 1:
        records(text);
        break;
      default:
        times(text);
        break;
    }
  } catch (const reports::SweepFileError& error) {
    fencesim::fuzz::check_one_line(error);
  }
  return 0;
}
