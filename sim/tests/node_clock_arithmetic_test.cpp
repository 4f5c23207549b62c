// A node's clock readings are worked out in 64 bits while the products fit and in 128 bits beyond
// (sim/node_clock.cpp): both ways must give the readings of the 128-bit formula, on both sides of
// the point where 64 bits overflow (elapsed times of about 2.5 hours, shorter at a fast drift).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdint>

#include "sim/node_clock.h"

namespace fencesim::sim::testing::node_clock_arithmetic_test {
namespace {

__extension__ typedef __int128 Wide;
constexpr std::int64_t kMillion = 1'000'000;

// The readings as the clock's definition gives them, in 128 bits throughout (the test's own).
std::int64_t reference_monotonic(std::int64_t start, std::int64_t ppm, std::int64_t elapsed) {
  return start + static_cast<std::int64_t>(Wide{elapsed} * (kMillion + ppm) / kMillion);
}
std::int64_t reference_true_time(std::int64_t start, std::int64_t ppm, std::int64_t monotonic) {
  if (monotonic <= start) return 0;
  const Wide rate = kMillion + ppm;
  return static_cast<std::int64_t>((Wide{monotonic - start} * kMillion + rate - 1) / rate);
}

// Elapsed times from a nanosecond to about 146 years: every power of two's neighbourhood, so both
// sides of the overflow point are drawn often.
rc::Gen<std::int64_t> elapsed_times() {
  return rc::gen::mapcat(rc::gen::inRange(0, 62), [](int bits) {
    const std::int64_t low = std::int64_t{1} << bits;
    return rc::gen::inRange<std::int64_t>(low, low * 2);
  });
}

rc::Gen<std::int64_t> drifts() {
  return rc::gen::oneOf(rc::gen::element<std::int64_t>(0, 1, -1, 999, -999, 1000, -1000),
                        rc::gen::inRange<std::int64_t>(-kMillion / 2 + 1, 4 * kMillion));
}

RC_GTEST_PROP(NodeClockArithmetic, ReadsAsThe128BitFormulaAtAnyElapsedTime, ()) {
  const std::int64_t start = *rc::gen::inRange<std::int64_t>(0, std::int64_t{1} << 40);
  const std::int64_t ppm = *drifts();
  const std::int64_t elapsed = *elapsed_times();
  // Readings that would not fit a clock at all (past 2^62 ns, about 146 years) are outside its
  // domain.
  RC_PRE(Wide{start} + Wide{elapsed} * (kMillion + ppm) / kMillion < (Wide{1} << 62));
  const std::int64_t expected = reference_monotonic(start, ppm, elapsed);
  NodeClock clock(0, start);
  clock.set_drift_ppm(0, ppm);
  RC_ASSERT(clock.monotonic_at(elapsed) == expected);
  RC_ASSERT(clock.true_time_when(expected) == reference_true_time(start, ppm, expected));
  // The rounding up of true_time_when: at the returned time the clock has reached the reading,
  // and a nanosecond earlier it had not.
  const std::int64_t when = clock.true_time_when(expected);
  RC_ASSERT(clock.monotonic_at(when) >= expected);
  RC_ASSERT(when == 0 || clock.monotonic_at(when - 1) < expected);
}

TEST(NodeClockArithmetic, BothSidesOfTheOverflowPointReadAlike) {
  // At 999 ppm: the last elapsed times whose product with 1,000,999 fits 64 bits and the first
  // that do not, each read against the test's own 128-bit formula.
  const std::int64_t last_fitting = INT64_MAX / (kMillion + 999);
  for (const std::int64_t elapsed :
       {last_fitting - 1, last_fitting, last_fitting + 1, last_fitting + 2}) {
    NodeClock clock(0, 7);
    clock.set_drift_ppm(0, 999);
    EXPECT_EQ(clock.monotonic_at(elapsed), reference_monotonic(7, 999, elapsed)) << elapsed;
    const std::int64_t reading = reference_monotonic(7, 999, elapsed);
    EXPECT_EQ(clock.true_time_when(reading), reference_true_time(7, 999, reading)) << elapsed;
  }
}

}  // namespace
}  // namespace fencesim::sim::testing::node_clock_arithmetic_test
