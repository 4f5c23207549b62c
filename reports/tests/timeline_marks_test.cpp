// Every mark at the event that reached it, on the timeline (properties::place_marks; the rules
// themselves are tested in properties/tests/marks_test.cpp).
#include <gtest/gtest.h>

#include "reports/tests/timeline_fixture.h"

namespace fencesim::reports::timeline_marks_test {
namespace {

// On the timeline, the refused stale write's mark sits at the sink's refusal, on the sink's lane.
TEST(MarkPlacesTest, TheTimelineDrawsAMarkCountedFromTheHistoryWhereItHappened) {
  const testing::Captured& run = testing::passing_kleppmann();
  const auto& t = run.timeline;
  ASSERT_EQ(t["marks_count"]["stale-write-refused"], 1);
  const auto marks = testing::where(t["marks"], "name", "stale-write-refused");
  ASSERT_EQ(marks.size(), 1u);
  const auto events = testing::where(t["events"], "i", marks[0]["event"]);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["kind"], "sink-refused");
  EXPECT_EQ(marks[0]["node"], events[0]["node"]);
  EXPECT_EQ(marks[0]["t"], events[0]["t"]);
  // Every mark counted is drawn: as many marks on the timeline as the counts add up to.
  std::uint64_t counted = 0;
  for (const auto& [name, count] : t["marks_count"].items()) counted += count.get<std::uint64_t>();
  EXPECT_EQ(t["marks"].size(), counted);
}

}  // namespace
}  // namespace fencesim::reports::timeline_marks_test
