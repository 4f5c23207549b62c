// The C++ builder's aimed faults (scenarios/fault_spec.h): what a hand-written scenario says with
// aimed_at, in_flight and until is drawn into the plan inside its ranges, and a fault without a
// trigger cannot be aimed. A fault that aims nothing draws exactly as before aims existed.
#include <gtest/gtest.h>

#include <algorithm>

#include "scenarios/fault_spec.h"

namespace fencesim::scenarios::fault_spec_test {
namespace {

using runtime::EventKind;
using runtime::kMillisecond;
using runtime::kSecond;

// Aimed in flight without a range, a fault strikes anywhere from a tenth to nine tenths of the
// flight, drawn per seed (red team 34a: a default of 100..100 struck every such fault at one point
// of its flight, and no scenario of the day used the default to notice).
TEST(FaultSpecAim, InFlightWithoutARangeStrikesAcrossTheFlight) {
  const FaultSpec spec =
      stall("instance-1").after(EventKind::kRenewSent).in_flight().lasting(kSecond);
  sim::Rng rng = sim::derive_stream(7, "faults");
  int low = 1000;
  int high = 0;
  for (int i = 0; i < 200; ++i) {
    const sim::Fault fault = spec.draw(rng);
    ASSERT_TRUE(fault.trigger.has_value());
    low = std::min(low, fault.trigger->within_permille);
    high = std::max(high, fault.trigger->within_permille);
  }
  EXPECT_GE(low, 100);
  EXPECT_LE(high, 900);
  EXPECT_LT(low, 200);
  EXPECT_GT(high, 800);
}

TEST(FaultSpecAim, AimedFaultsDrawTheirOffsetsInsideTheirRanges) {
  const FaultSpec stop_spec = stop("instance-1")
                                  .after(EventKind::kLeaseRenewed, 2)
                                  .aimed_at(sim::Aim::kHolderExpiry, -24 * kSecond, -21 * kSecond)
                                  .until(sim::Aim::kStoreExpiry, -15 * kMillisecond, 0);
  const FaultSpec flight_spec =
      stall("instance-1").after(EventKind::kRenewSent).in_flight(200, 300).lasting(kSecond);
  sim::Rng rng = sim::derive_stream(7, "faults");
  for (int i = 0; i < 50; ++i) {
    const sim::Fault stop_fault = stop_spec.draw(rng);
    ASSERT_TRUE(stop_fault.trigger.has_value());
    EXPECT_EQ(stop_fault.trigger->occurrence, 2);
    EXPECT_EQ(stop_fault.trigger->aim, sim::Aim::kHolderExpiry);
    EXPECT_GE(stop_fault.trigger->delay_ns, -24 * kSecond);
    EXPECT_LE(stop_fault.trigger->delay_ns, -21 * kSecond);
    EXPECT_EQ(stop_fault.trigger->until, sim::Aim::kStoreExpiry);
    EXPECT_GE(stop_fault.trigger->until_delay_ns, -15 * kMillisecond);
    EXPECT_LE(stop_fault.trigger->until_delay_ns, 0);
    const sim::Fault flight = flight_spec.draw(rng);
    EXPECT_EQ(flight.trigger->aim, sim::Aim::kInFlight);
    EXPECT_GE(flight.trigger->within_permille, 200);
    EXPECT_LE(flight.trigger->within_permille, 300);
    EXPECT_EQ(flight.trigger->until, sim::Aim::kEvent);
    EXPECT_EQ(flight.duration_ns, kSecond);
  }
}

// Each offset is drawn up to its own high: an aim's delay, a message's per mille and an until's
// delay have three ranges, and one drawn up to another's high (here the aim's -21 s, below the
// until's low) would stay at its low in every seed while still inside its range.
TEST(FaultSpecAim, EachOffsetRangeIsDrawnUpToItsOwnHigh) {
  const FaultSpec spec = stop("instance-1")
                             .after(EventKind::kLeaseRenewed)
                             .aimed_at(sim::Aim::kHolderExpiry, -24 * kSecond, -21 * kSecond)
                             .until(sim::Aim::kHolderExpiry, -15 * kMillisecond, 0);
  sim::Rng rng = sim::derive_stream(7, "faults");
  std::int64_t highest_delay = -24 * kSecond;
  std::int64_t highest_until = -15 * kMillisecond;
  for (int i = 0; i < 50; ++i) {
    const sim::Fault fault = spec.draw(rng);
    highest_delay = std::max(highest_delay, fault.trigger->delay_ns);
    highest_until = std::max(highest_until, fault.trigger->until_delay_ns);
  }
  // 50 draws reach the top fifth of each range (seed 7: both do).
  EXPECT_GT(highest_delay, -21 * kSecond - 600 * kMillisecond);
  EXPECT_GT(highest_until, -3 * kMillisecond);
}

TEST(FaultSpecAim, AFaultThatAimsNothingDrawsAsBefore) {
  // Three draws per fault (time, duration, amount), none for an aim: the stream after it is where
  // it always was.
  const FaultSpec plain = stall("instance-1").after(EventKind::kWriteSent).lasting_between(
      35 * kSecond, 60 * kSecond);
  sim::Rng drawn = sim::derive_stream(3, "faults");
  plain.draw(drawn);
  sim::Rng counted = sim::derive_stream(3, "faults");
  counted.between(0, 0);                         // the time (a trigger's fault has none)
  counted.between(35 * kSecond, 60 * kSecond);  // the duration
  counted.between(0, 0);                         // the amount
  EXPECT_EQ(drawn.between(0, 1'000'000'000), counted.between(0, 1'000'000'000));
}

TEST(FaultSpecAim, OnlyATriggeredFaultCanBeAimed) {
  EXPECT_ANY_THROW(stall("instance-1").at(kSecond).aimed_at(sim::Aim::kHolderExpiry));
  EXPECT_ANY_THROW(stall("instance-1").after(EventKind::kRenewSent).in_flight(0, 500));
  EXPECT_ANY_THROW(stall("instance-1").after(EventKind::kRenewSent).until(sim::Aim::kInFlight));
}

}  // namespace
}  // namespace fencesim::scenarios::fault_spec_test
