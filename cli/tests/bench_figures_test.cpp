// The bench's figures taken in rounds are medians: the middle round by size, whatever order the
// rounds came in (red team 39b-48 took the second round as it came: one slow round then decided
// whether a switch-cost goal read as met).
#include "cli/bench_figures.h"

#include <gtest/gtest.h>

#include <vector>

namespace fencesim::cli::bench_figures_test {
namespace {

TEST(BenchFigures, TheMedianOfRoundsIsTheMiddleOneWhateverTheirOrder) {
  EXPECT_EQ(median_of_rounds({3, 1, 2}), 2);
  EXPECT_EQ(median_of_rounds({5, 9, 1}), 5);
  EXPECT_EQ(median_of_rounds({1, 2, 30}), 2);
  EXPECT_EQ(median_of_rounds({30, 2, 1}), 2);
  EXPECT_EQ(median_of_rounds({7}), 7);
  // An even count: the upper middle.
  EXPECT_EQ(median_of_rounds({4, 1, 3, 2}), 3);
}

}  // namespace
}  // namespace fencesim::cli::bench_figures_test
