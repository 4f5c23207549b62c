#pragma once
// A store's clock moved only by the test, for tests of the lease contract. Wall and monotonic time
// are separate on purpose: the contract judges expiry by the store's wall clock, which may step
// either way while the monotonic clock does not.
#include "runtime/env.h"

namespace fencesim::runtime::testing {

class SteppedClock final : public Clock {
 public:
  static constexpr Nanoseconds kStartWallNs = 1'700'000'000 * kSecond;

  Nanoseconds monotonic_ns() override { return monotonic_ns_; }
  Nanoseconds wall_ns() override { return wall_ns_; }

  // True time passes: both clocks move by `duration`.
  void advance(Nanoseconds duration) {
    monotonic_ns_ += duration;
    wall_ns_ += duration;
  }
  // The wall clock steps (NTP, migration); the monotonic clock does not move.
  void step_wall_clock(Nanoseconds delta) { wall_ns_ += delta; }
  // Only the monotonic clock moves (a wall clock that froze or runs slow).
  void advance_monotonic_only(Nanoseconds duration) { monotonic_ns_ += duration; }

 private:
  Nanoseconds monotonic_ns_ = 0;
  Nanoseconds wall_ns_ = kStartWallNs;
};

}  // namespace fencesim::runtime::testing
