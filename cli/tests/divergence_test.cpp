// Where check-determinism says two runs of one seed part (cli/divergence.h): a history that is a
// prefix of the other diverges at the first event it lacks, and only histories of one length and
// every hash alike are equal (red team 37c-08 called two histories equal as soon as either ended:
// a second run with events past the first's end read as "the verdicts differ" and named no event).
#include "cli/divergence.h"

#include <gtest/gtest.h>

namespace fencesim::cli {
namespace {

using Hashes = std::vector<std::uint64_t>;

TEST(FirstDivergence, EqualHistoriesHaveNone) {
  EXPECT_EQ(first_divergence({}, {}), std::nullopt);
  EXPECT_EQ(first_divergence(Hashes{1, 2, 3}, Hashes{1, 2, 3}), std::nullopt);
}

TEST(FirstDivergence, TheFirstEventWhoseHashDiffers) {
  EXPECT_EQ(first_divergence(Hashes{1, 2, 3}, Hashes{1, 9, 3}), 1u);
  EXPECT_EQ(first_divergence(Hashes{7}, Hashes{8}), 0u);
}

TEST(FirstDivergence, AHistoryThatGoesOnPastTheOthersEndDivergesWhereTheOtherEnded) {
  EXPECT_EQ(first_divergence(Hashes{1, 2}, Hashes{1, 2, 3, 4}), 2u);
  EXPECT_EQ(first_divergence(Hashes{1, 2, 3}, Hashes{1}), 1u);
  EXPECT_EQ(first_divergence(Hashes{}, Hashes{5}), 0u);
}

}  // namespace
}  // namespace fencesim::cli
