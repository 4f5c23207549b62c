// The edges of reading and writing a sweep's files (red-team round 28c): a field missing is not a
// field null, a runs.jsonl whose last line has no newline keeps that line, summary.md counts the
// marks never reached over every scenario, and `--html` under a path that is a file is refused
// before the run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "reports/json_reader.h"
#include "reports/json_text.h"
#include "reports/run_record.h"
#include "reports/summary_markdown.h"
#include "reports/timeline_files.h"

namespace fencesim::reports::sweep_files_test {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

RunRecord passing(std::uint64_t seed) {
  RunRecord record;
  record.scenario = "kleppmann-fencing";
  record.strategy = "random";
  record.seed = seed;
  record.status = "pass";
  record.history_hash = "00000000000000aa";
  return record;
}

TEST(JsonReader, AMissingFieldIsRefusedNotReadAsNull) {
  const JsonReader reader("runs.jsonl line 1");
  EXPECT_TRUE(reader.is_null(json{{"failure", nullptr}}, "failure"));
  EXPECT_FALSE(reader.is_null(json{{"failure", 1}}, "failure"));
  EXPECT_THROW(reader.is_null(json::object(), "failure"), SweepFileError);
}

// A record cut short (a line truncated by a full disk, a hand edit) is not a run that passed with
// no failure files: the reader names the missing field.
TEST(RunRecord, ALineWithoutItsNullableFieldsIsRefused) {
  for (const char* key : {"first_violation", "rerun_history_hash", "failure"}) {
    json line = json::parse(json_text(to_json(passing(1))));
    line.erase(key);
    try {
      run_record_from_json(line, "runs.jsonl line 1");
      ADD_FAILURE() << "a record without '" << key << "' was read";
    } catch (const SweepFileError& error) {
      EXPECT_NE(std::string(error.what()).find(key), std::string::npos) << error.what();
    }
  }
}

// `merge` and `--known` read a file's text as it is: the last record counts whether or not a
// newline ends it.
TEST(RunRecord, TheLastLineCountsWithoutANewline) {
  const std::string text =
      json_text(to_json(passing(1))) + "\n" + json_text(to_json(passing(2)));
  const std::vector<RunRecord> records = run_records_from_text(text, "runs.jsonl");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].seed, 1u);
  EXPECT_EQ(records[1].seed, 2u);
  EXPECT_EQ(run_records_from_text(text + "\n", "runs.jsonl").size(), 2u);
}

TEST(SummaryMarkdown, MarksNeverReachedAreCountedOverEveryScenario) {
  const ordered_json summary{
      {"scenarios",
       ordered_json::array({ordered_json{{"name", "first"},
                                         {"runs", 10},
                                         {"marks_never_reached", {"takeover-mid-step", "x"}}},
                            ordered_json{{"name", "second"},
                                         {"runs", 10},
                                         {"marks_never_reached", ordered_json::array()}}})}};
  const std::string markdown = summary_markdown(summary);
  EXPECT_NE(markdown.find("2 mark(s) never reached"), std::string::npos) << markdown;
  EXPECT_EQ(markdown.find("Every scenario reached every mark"), std::string::npos) << markdown;
}

// A typo that puts the page under a file must fail before a long run, not after it.
TEST(RunPictures, APathUnderAFileIsRefusedBeforeTheRun) {
  namespace fs = std::filesystem;
  const fs::path file =
      fs::path(::testing::TempDir()) / ("fencesim-not-a-folder-" + std::to_string(getpid()));
  std::ofstream(file) << "a file\n";
  const std::string under = (file / "run.html").string();
  EXPECT_THROW(RunPictures(under, "").check_paths(), ReportFileError);
  EXPECT_THROW(RunPictures("", under).check_paths(), ReportFileError);
  EXPECT_NO_THROW(RunPictures((fs::path(::testing::TempDir()) / "run.html").string(), "")
                      .check_paths());
  fs::remove(file);
}

}  // namespace
}  // namespace fencesim::reports::sweep_files_test
