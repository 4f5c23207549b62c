// The reconcile body's record of a hand-over (scenarios/hand_over_text.h): plain only when the
// error carries both the fence's token and the one the downstream reported. Red team 32c left a
// `||` made `&&` here unjudged: with an honest runtime the sweep never meets a wrong token, so
// only this test says a fence handing over someone else's token is written down.
#include "scenarios/hand_over_text.h"

#include <gtest/gtest.h>

#include <string>

namespace fencesim::scenarios::hand_over_text_test {
namespace {

constexpr std::string_view kPlain = "execution.lease-lost.fenced";

runtime::ExecutionFencedError fenced(runtime::Token token, runtime::Token observed) {
  return runtime::ExecutionFencedError({"tenant", "tree"}, token, observed, "scope");
}

TEST(HandOverText, BothTokensCarriedIsThePlainCode) {
  EXPECT_EQ(fenced_error_text(fenced(4, 7), 7, 4), kPlain);
}

TEST(HandOverText, AWrongOwnTokenIsWrittenDown) {
  EXPECT_EQ(fenced_error_text(fenced(5, 7), 7, 4),
            std::string(kPlain) + " carrying token 5 and observed token 7");
}

TEST(HandOverText, AWrongObservedTokenIsWrittenDown) {
  EXPECT_EQ(fenced_error_text(fenced(4, 6), 7, 4),
            std::string(kPlain) + " carrying token 4 and observed token 6");
}

TEST(HandOverText, BothWrongIsWrittenDown) {
  EXPECT_EQ(fenced_error_text(fenced(3, 6), 7, 4),
            std::string(kPlain) + " carrying token 3 and observed token 6");
}

TEST(HandOverText, AReportedTokenPastTheMaximumCarriedAsASafeOneIsPlain) {
  EXPECT_EQ(fenced_error_text(fenced(4, runtime::kTokenMax), runtime::kTokenMax + 9, 4), kPlain);
  EXPECT_NE(fenced_error_text(fenced(5, runtime::kTokenMax), runtime::kTokenMax + 9, 4), kPlain);
}

TEST(HandOverText, AFenceThatCouldNotSayItsTokenWritesTheTokensDown) {
  // The step ended before the rejection came: no token of the fence's to match.
  EXPECT_NE(fenced_error_text(fenced(4, 7), 7, runtime::kTokenNone), kPlain);
}

}  // namespace
}  // namespace fencesim::scenarios::hand_over_text_test
