// The sweep's signal catcher (cli/sweep_interrupt.h): the first SIGINT or SIGTERM is caught and
// kept, and a second signal of either kind ends the process the default way. A user who presses
// Ctrl-C after a CI cancel's SIGTERM (or the reverse) means it as much as one who presses Ctrl-C
// twice; a sweep that swallowed it would go on winding down. Death tests: each runs in a child.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>

#include "cli/sweep_interrupt.h"

namespace fencesim::cli::interrupt_catcher_test {
namespace {

TEST(InterruptCatcher, TheFirstSignalIsCaughtAndKept) {
  InterruptCatcher catcher;
  EXPECT_EQ(InterruptCatcher::caught(), 0);
  std::raise(SIGTERM);
  EXPECT_EQ(InterruptCatcher::caught(), SIGTERM);
}

void caught_then(int first, int second) {
  InterruptCatcher catcher;
  std::raise(first);
  if (InterruptCatcher::caught() != first) std::_Exit(3);
  std::raise(second);
  std::_Exit(0);  // the second signal was swallowed
}

TEST(InterruptCatcherDeathTest, ASecondSignalOfEitherKindEndsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(caught_then(SIGINT, SIGINT), ::testing::KilledBySignal(SIGINT), "");
  EXPECT_EXIT(caught_then(SIGINT, SIGTERM), ::testing::KilledBySignal(SIGTERM), "");
  EXPECT_EXIT(caught_then(SIGTERM, SIGINT), ::testing::KilledBySignal(SIGINT), "");
}

}  // namespace
}  // namespace fencesim::cli::interrupt_catcher_test
