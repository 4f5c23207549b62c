#include "cli/parse.h"

#include <gtest/gtest.h>

#include <limits>
#include <set>

#include "reports/replay_file.h"

namespace fencesim::cli::parse_test {
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
  const SeedRange single = parse_seed_range("--seeds", "9");
  EXPECT_EQ(single.first, 9u);
  EXPECT_EQ(single.last, 9u);
  const SeedRange whole = parse_seed_range("--seeds", "0..18446744073709551615");
  EXPECT_EQ(whole.first, 0u);
  EXPECT_EQ(whole.last, std::numeric_limits<std::uint64_t>::max());
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
            "--strategy: unknown strategy 'PCT' (expected random, pct or pct-dN)");
}

TEST(ParseStrategy, PctDepthsRoundTripThroughTheirNames) {
  properties::RunRequest request;
  set_strategy("--strategy", "pct-d1", request);
  EXPECT_EQ(request.strategy, sim::Strategy::kPct);
  EXPECT_EQ(request.pct_change_points, 1);
  EXPECT_EQ(reports::strategy_name(request), "pct-d1");
  set_strategy("--strategy", "pct", request);
  EXPECT_EQ(request.pct_change_points, 3);
  EXPECT_EQ(reports::strategy_name(request), "pct");
  set_strategy("--strategy", "random", request);
  EXPECT_EQ(reports::strategy_name(request), "random");
  // One name per depth: the default depth is "pct", never "pct-d3".
  EXPECT_EQ(error_of([&] { set_strategy("--strategy", "pct-d3", request); }),
            "--strategy: unknown strategy 'pct-d3' (expected random, pct, pct-dN or drawn)");
  EXPECT_EQ(error_of([&] { set_strategy("--strategy", "pct-d12", request); }),
            "--strategy: unknown strategy 'pct-d12' (expected random, pct, pct-dN or drawn)");
}

TEST(ParseStrategy, DrawnIsTheSeedsOwnAndVaries) {
  std::set<std::string> names;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    properties::RunRequest request;
    request.seed = seed;
    set_strategy("--strategy", "drawn", request);
    const std::string name = reports::strategy_name(request);
    EXPECT_EQ(name, reports::drawn_strategy(seed));
    EXPECT_TRUE(reports::named_strategy(name).has_value()) << name;
    names.insert(name);
  }
  // Random walk and PCT at every depth 0..4 ("pct" is depth 3).
  EXPECT_EQ(names, (std::set<std::string>{"pct", "pct-d0", "pct-d1", "pct-d2", "pct-d4",
                                          "random"}));
}

}  // namespace
}  // namespace fencesim::cli::parse_test
