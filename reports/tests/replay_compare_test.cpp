// first_divergence: where a run's history record (4 hex digits an event) first leaves the one a
// replay file recorded. A history that stops early, or goes on longer, diverges at the shorter's
// end, whichever side is the shorter.
#include <gtest/gtest.h>

#include "reports/replay_compare.h"

namespace fencesim::reports::replay_compare_test {
namespace {

TEST(FirstDivergence, EqualDigestsNeverDiverge) {
  EXPECT_EQ(first_divergence("", ""), std::nullopt);
  EXPECT_EQ(first_divergence("00aa11bb22cc", "00aa11bb22cc"), std::nullopt);
}

TEST(FirstDivergence, TheFirstEventWhoseDigestDiffers) {
  EXPECT_EQ(first_divergence("00aa11bb22cc", "ffff11bb22cc"), 0u);
  EXPECT_EQ(first_divergence("00aa11bb22cc", "00aa11bb22cd"), 2u);
}

TEST(FirstDivergence, APrefixDivergesWhereItEndsWhicheverSideIsShorter) {
  // The run now ends early (a fix that stops the run sooner) ...
  EXPECT_EQ(first_divergence("00aa11bb22cc", "00aa"), 1u);
  EXPECT_EQ(first_divergence("00aa11bb22cc", ""), 0u);
  // ... or goes on past where the recorded run ended.
  EXPECT_EQ(first_divergence("00aa", "00aa11bb22cc"), 1u);
}

}  // namespace
}  // namespace fencesim::reports::replay_compare_test
