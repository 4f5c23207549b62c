#include "sim/node_clock.h"

#include "runtime/check.h"

namespace fencesim::sim {

namespace {
// 128 bits: elapsed nanoseconds times a million overflow 64 bits after about 2.5 hours.
__extension__ typedef __int128 Wide;
}  // namespace

Nanoseconds NodeClock::monotonic_at(Nanoseconds true_now_ns) const {
  const Wide elapsed = true_now_ns - anchor_true_ns_;
  return monotonic_base_ns_ +
         static_cast<Nanoseconds>(elapsed * (kMillion + drift_ppm_) / kMillion);
}

Nanoseconds NodeClock::true_time_when(Nanoseconds monotonic_ns) const {
  if (monotonic_ns <= monotonic_base_ns_) return anchor_true_ns_;
  const Wide local = monotonic_ns - monotonic_base_ns_;
  const Wide rate = kMillion + drift_ppm_;
  // Round up, so that at the returned time the clock has reached monotonic_ns.
  return anchor_true_ns_ + static_cast<Nanoseconds>((local * kMillion + rate - 1) / rate);
}

void NodeClock::set_drift_ppm(Nanoseconds true_now_ns, std::int64_t drift_ppm) {
  check(drift_ppm > -kMillion / 2, "a clock runs forward at more than half speed");
  monotonic_base_ns_ = monotonic_at(true_now_ns);
  anchor_true_ns_ = true_now_ns;
  drift_ppm_ = drift_ppm;
}

}  // namespace fencesim::sim
