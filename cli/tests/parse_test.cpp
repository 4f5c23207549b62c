#include "cli/parse.h"

#include <gtest/gtest.h>

#include <limits>

namespace fencesim::cli {
namespace {

std::string error_of(auto&& call) {
  try {
    call();
  } catch (const UsageError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(ParseSeed, AcceptsTheWholeUnsignedRange) {
  EXPECT_EQ(parse_seed("--seed", "0"), 0u);
  EXPECT_EQ(parse_seed("--seed", "42"), 42u);
  EXPECT_EQ(parse_seed("--seed", "18446744073709551615"),
            std::numeric_limits<std::uint64_t>::max());
}

TEST(ParseSeed, RejectsWhatIsNotADecimalNumber) {
  for (const char* text : {"", "-1", "+1", " 1", "1 ", "0x10", "1e3", "abc"}) {
    EXPECT_EQ(error_of([&] { parse_seed("--seed", text); }),
              "--seed: '" + std::string(text) + "' is not an unsigned 64-bit integer");
  }
  EXPECT_EQ(error_of([] { parse_seed("--seed", "18446744073709551616"); }),
            "--seed: '18446744073709551616' is out of range (0..18446744073709551615)");
}

TEST(ParseSeedRange, ReadsInclusiveRanges) {
  const SeedRange range = parse_seed_range("--seeds", "3..7");
  EXPECT_EQ(range.first, 3u);
  EXPECT_EQ(range.last, 7u);
  EXPECT_EQ(range.count(), 5u);
  EXPECT_EQ(parse_seed_range("--seeds", "9").count(), 1u);
  EXPECT_EQ(parse_seed_range("--seeds", "0..18446744073709551615").count(),
            std::numeric_limits<std::uint64_t>::max());
}

TEST(ParseSeedRange, RejectsBadRanges) {
  for (const char* text : {"5..1", "1-5", "..5", "1..", "a..b", "1...5", ""}) {
    EXPECT_EQ(error_of([&] { parse_seed_range("--seeds", text); }),
              "--seeds: expected A..B with A <= B, got '" + std::string(text) + "'");
  }
  EXPECT_EQ(error_of([] { parse_seed_range("--seeds", "1..18446744073709551616"); }),
            "--seeds: '18446744073709551616' is out of range (0..18446744073709551615)");
}

TEST(ParseStrategy, KnowsRandomAndPct) {
  EXPECT_EQ(parse_strategy("--strategy", "random"), sim::Strategy::kRandomWalk);
  EXPECT_EQ(parse_strategy("--strategy", "pct"), sim::Strategy::kPct);
  EXPECT_EQ(error_of([] { parse_strategy("--strategy", "PCT"); }),
            "--strategy: unknown strategy 'PCT' (expected random or pct)");
}

}  // namespace
}  // namespace fencesim::cli
