// A run's record (runs.jsonl, reports/run_record.h) says what its report said, field by field, and
// reads back the same: every summary, page and claim is made from these records, so a field left
// at its default is a fact every report then misstates (red team 32c: a record that never copied
// `within_assumptions` made every run read as judged within the protocol's assumptions, and every
// test passed: every clean run is within them, and no test made a record of one that was not).
#include "reports/run_record.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace fencesim::reports::run_record_test {
namespace {

properties::RunReport outside_the_assumptions() {
  properties::RunReport report;
  report.request.scenario = "swarm";
  report.request.seed = 17;
  report.status = properties::RunStatus::kPass;
  report.history_hash = 0x0123456789abcdefULL;
  report.events = 4242;
  report.virtual_ns = 123'456'789;
  report.steps = 99;
  report.within_assumptions = false;
  report.marks = {{"takeover-mid-step", 2}};
  report.figures = {{"unchecked-calls", 3}};
  return report;
}

TEST(RunRecord, EveryFactOfTheReportIsRecordedAndReadsBack) {
  for (const bool within : {false, true}) {
    properties::RunReport report = outside_the_assumptions();
    report.within_assumptions = within;
    const RunRecord record = make_run_record(report);
    EXPECT_EQ(record.within_assumptions, within);
    EXPECT_EQ(record.scenario, "swarm");
    EXPECT_EQ(record.seed, 17u);
    EXPECT_EQ(record.events, 4242u);
    EXPECT_EQ(record.virtual_ns, 123'456'789);
    EXPECT_EQ(record.steps, 99u);
    EXPECT_EQ(record.history_hash, "0123456789abcdef");
    EXPECT_EQ(record.marks, report.marks);
    EXPECT_EQ(record.figures, report.figures);
    const RunRecord back =
        run_record_from_json(nlohmann::json::parse(to_json(record).dump()), "runs.jsonl:1");
    EXPECT_EQ(back.within_assumptions, within);
    EXPECT_EQ(back.events, record.events);
    EXPECT_EQ(back.history_hash, record.history_hash);
  }
}

// A branch run's record reads back whole: its branch point, its replay file and the marks it
// reached after the branch point (marks_after), which a merge and a resume read from runs.jsonl
// and write again. Lost there, a merged or resumed branching sweep counts every branch's hits as
// none (the summary's mark_hits count a branch's marks after its point). A count that is not one
// is refused, naming the mark.
TEST(RunRecord, ABranchsMarksAfterItsPointReadBack) {
  RunRecord record = make_run_record(outside_the_assumptions());
  record.branch = BranchRecord{{"stale-write-refused", 134, 2},
                               {{"stale-write-refused", 1}, {"takeover-mid-step", 3}},
                               "branches/swarm-random-17-stale-write-refused-e134-b2.replay.json"};
  const nlohmann::json json = nlohmann::json::parse(to_json(record).dump());
  EXPECT_EQ(json["branch"]["marks_after"],
            (nlohmann::json{{"stale-write-refused", 1}, {"takeover-mid-step", 3}}));
  const RunRecord back = run_record_from_json(json, "runs.jsonl:1");
  ASSERT_TRUE(back.branch.has_value());
  EXPECT_EQ(*back.branch, *record.branch);
  EXPECT_EQ(back.branch->marks_after.at("takeover-mid-step"), 3u);

  nlohmann::json bad = json;
  bad["branch"]["marks_after"]["takeover-mid-step"] = "three";
  try {
    run_record_from_json(bad, "runs.jsonl:1");
    ADD_FAILURE() << "a count that is a string was read";
  } catch (const SweepFileError& error) {
    EXPECT_NE(std::string(error.what()).find("mark 'takeover-mid-step' must be a count"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace fencesim::reports::run_record_test
