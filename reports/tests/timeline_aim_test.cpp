// A fault aimed at a deadline is drawn against it: the timeline carries the deadline the world
// worked out, the fault's end at the deadline it lasted until (not the plan's duration), and the
// static page draws the deadline on the fault's row; an aim that found no deadline is drawn where
// its event came, as missed.
#include <gtest/gtest.h>

#include "reports/tests/timeline_fixture.h"
#include "reports/timeline.h"
#include "scenarios/spec.h"
#include "tests/paths.h"

namespace fencesim::reports::timeline_aim_test {
namespace {

using testing::kAimedSpecHead;
using testing::spec_timeline;

TEST(TimelineAim, AnAimedFaultIsDrawnAgainstItsDeadlineAndEndsAtTheOneItLastedUntil) {
  const nlohmann::ordered_json t = spec_timeline(kAimedSpecHead + testing::kAimedDelay, 3);
  ASSERT_EQ(t["faults"].size(), 1u);
  const auto& fault = t["faults"][0];
  ASSERT_TRUE(fault.contains("aim")) << fault.dump();
  const auto& aim = fault["aim"];
  EXPECT_EQ(aim["aim"], "holder-expiry");
  EXPECT_EQ(aim["until"], "store-expiry");
  const std::int64_t deadline = aim["deadline_ns"];
  EXPECT_EQ(fault["start_ns"].get<std::int64_t>(), deadline - 25 * runtime::kSecond);
  EXPECT_EQ(aim["fires_ns"], fault["start_ns"]);
  // Its end is the store's expiry less 2 s, which the plan's duration (none) does not say.
  const std::int64_t until = aim["until_deadline_ns"];
  EXPECT_GT(until, deadline);  // the store's expiry comes after the holder's
  EXPECT_EQ(fault["end_ns"].get<std::int64_t>(), until - 2 * runtime::kSecond);
  EXPECT_TRUE(t["missed_aims"].empty());
  const std::string page = render_run_html(t);
  EXPECT_NE(page.find("class=\"deadline\""), std::string::npos);
  EXPECT_NE(page.find("holder-expiry of"), std::string::npos);
  EXPECT_NE(page.find("store-expiry of"), std::string::npos);
}

TEST(TimelineAim, AnAimThatFoundNoDeadlineIsDrawnAsMissed) {
  const nlohmann::ordered_json t = spec_timeline(kAimedSpecHead + testing::kMissedAim, 3);
  EXPECT_TRUE(t["faults"].empty());
  ASSERT_EQ(t["missed_aims"].size(), 1u);
  const std::string missed = t["missed_aims"][0]["missed"];
  EXPECT_NE(missed.find("is not an instance"), std::string::npos) << missed;
  const std::string page = render_run_html(t);
  EXPECT_NE(page.find("class=\"deadline missed\""), std::string::npos);
}

}  // namespace
}  // namespace fencesim::reports::timeline_aim_test
