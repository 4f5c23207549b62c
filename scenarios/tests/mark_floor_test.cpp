// Declared marks are assertions: how a floor is written, read back and judged.
#include "scenarios/mark_floor.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace fencesim::scenarios::mark_floor_test {
namespace {

TEST(MarkFloor, ANameAloneMustBeReachedAtAll) {
  const MarkFloor floor = parse_mark_floor("stale-write-refused");
  EXPECT_EQ(floor.name, "stale-write-refused");
  EXPECT_EQ(floor.rate, 0);
  EXPECT_EQ(floor.text(), "stale-write-refused");
  EXPECT_EQ(floor.floor_text(), "reached at all");
  EXPECT_EQ(floor.runs_needed(), kReachedAtAllRuns);
  EXPECT_FALSE(floor.met_by(0, 1000));
  EXPECT_TRUE(floor.met_by(1, 1000));
}

TEST(MarkFloor, ARateFloorNeedsThreeOverTheRateRuns) {
  const MarkFloor floor = parse_mark_floor("  takeover-mid-step >=2 % ");
  EXPECT_EQ(floor.name, "takeover-mid-step");
  EXPECT_DOUBLE_EQ(floor.rate, 0.02);
  EXPECT_EQ(floor.text(), "takeover-mid-step >= 2%");
  EXPECT_EQ(floor.runs_needed(), 150u);
  EXPECT_TRUE(floor.met_by(2, 100));
  EXPECT_FALSE(floor.met_by(1, 100));
  // No run proves no floor: 0 of 0 is not 2% (a scenario the sweep never ran is not met).
  EXPECT_FALSE(floor.met_by(0, 0));
  EXPECT_FALSE(parse_mark_floor("x >= 0.5%").met_by(0, 0));
  EXPECT_EQ(parse_mark_floor("x >= 0.5%").runs_needed(), 600u);
  EXPECT_EQ(parse_mark_floor("x >= 80%").runs_needed(), kReachedAtAllRuns);
  // Above 80%, a floor waits for enough runs that a mark missed by one run in a few hundred is
  // not judged under it by chance: from just above 80%, not only from 90% (red team 39d-06 moved
  // the line to 90%, and an 85% floor was judged over 20 runs).
  EXPECT_EQ(parse_mark_floor("x >= 81%").runs_needed(), kHighFloorRuns);
  EXPECT_EQ(parse_mark_floor("x >= 85%").runs_needed(), kHighFloorRuns);
  EXPECT_EQ(parse_mark_floor("x >= 95%").runs_needed(), kHighFloorRuns);
  EXPECT_EQ(parse_mark_floor("x >= 100%").runs_needed(), kHighFloorRuns);
  // In runs, not by the constant alone (red team 36a-61 raised it to 1,000: a 90 s sweep gives a
  // scenario a few hundred runs, and every 95% floor went unjudged, "not enough runs"); and a
  // reached-at-all floor is judged from 20 runs.
  EXPECT_EQ(kHighFloorRuns, 100u);
  EXPECT_EQ(kReachedAtAllRuns, 20u);
  // The text reads back as the same floor (sweep.json keeps floors as text).
  EXPECT_EQ(parse_mark_floor(parse_mark_floor("x >= 0.25%").text()), parse_mark_floor("x >= 0.25%"));
}

TEST(MarkFloor, ABadFloorIsOneLineSayingWhatIsWrong) {
  const auto message = [](const char* text) {
    try {
      parse_mark_floor(text);
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message(""), "mark '': a mark name is not empty");
  EXPECT_EQ(message(">= 2%"), "mark '>= 2%': a mark name is not empty");
  EXPECT_EQ(message("x >= 2"),
            "mark 'x >= 2': the floor after '>=' is a share of runs such as '2%' or '0.5%'");
  EXPECT_EQ(message("x >= two%"),
            "mark 'x >= two%': the floor after '>=' is a share of runs such as '2%' or '0.5%'");
  EXPECT_EQ(message("x >= 0%"), "mark 'x >= 0%': a floor is more than 0% and at most 100%");
  EXPECT_EQ(message("x >= 101%"), "mark 'x >= 101%': a floor is more than 0% and at most 100%");
  EXPECT_NE(message("x > 2%").find("a mark name has letters"), std::string::npos);
}

TEST(MarkFloor, NamesKeepTheirOrder) {
  EXPECT_EQ(mark_names({"b", "a >= 5%"}), (std::vector<std::string>{"b", "a"}));
}

}  // namespace
}  // namespace fencesim::scenarios::mark_floor_test
