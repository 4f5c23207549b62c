#pragma once
// A simulated process's clocks against true (virtual) time. The monotonic clock runs at
// 1 + drift_ppm / 1e6 of true time, piecewise: a change of rate re-anchors it so it never jumps.
// The wall clock is the monotonic clock plus an offset that faults step forward or backward
// (a migration, an NTP step). Integer arithmetic only: the same run gives the same readings.
#include <cstdint>

#include "runtime/types.h"

namespace fencesim::sim {

using runtime::Nanoseconds;

class NodeClock {
 public:
  explicit NodeClock(Nanoseconds wall_offset_ns = 0, Nanoseconds monotonic_start_ns = 0)
      : monotonic_base_ns_(monotonic_start_ns), wall_offset_ns_(wall_offset_ns) {}

  Nanoseconds monotonic_at(Nanoseconds true_now_ns) const;
  Nanoseconds wall_at(Nanoseconds true_now_ns) const {
    return monotonic_at(true_now_ns) + wall_offset_ns_;
  }
  // The first true time at which the monotonic clock reads at least `monotonic_ns`.
  Nanoseconds true_time_when(Nanoseconds monotonic_ns) const;

  void set_drift_ppm(Nanoseconds true_now_ns, std::int64_t drift_ppm);
  std::int64_t drift_ppm() const { return drift_ppm_; }
  void step_wall(Nanoseconds delta_ns) { wall_offset_ns_ += delta_ns; }

 private:
  static constexpr std::int64_t kMillion = 1'000'000;
  Nanoseconds anchor_true_ns_ = 0;
  Nanoseconds monotonic_base_ns_;
  Nanoseconds wall_offset_ns_;
  std::int64_t drift_ppm_ = 0;
};

}  // namespace fencesim::sim
