#include "sim/node_clock.h"

#include "runtime/check.h"

namespace fencesim::sim {

namespace {
// 128 bits: elapsed nanoseconds times a million overflow 64 bits after about 2.5 hours.
__extension__ typedef __int128 Wide;
}  // namespace

// Both readings are worked out in 64 bits while the products fit (elapsed times up to about 2.5
// hours at any drift), in 128 bits beyond: the quotients are the same (both truncate toward zero),
// and a 128-bit division is a library call (__divti3), made on every event's time stamp before.
Nanoseconds NodeClock::monotonic_at(Nanoseconds true_now_ns) const {
  const Nanoseconds elapsed = true_now_ns - anchor_true_ns_;
  if (std::int64_t scaled = 0; !__builtin_mul_overflow(elapsed, kMillion + drift_ppm_, &scaled)) {
    return monotonic_base_ns_ + scaled / kMillion;
  }
  return monotonic_base_ns_ +
         static_cast<Nanoseconds>(Wide{elapsed} * (kMillion + drift_ppm_) / kMillion);
}

Nanoseconds NodeClock::true_time_when(Nanoseconds monotonic_ns) const {
  if (monotonic_ns <= monotonic_base_ns_) return anchor_true_ns_;
  const Nanoseconds local = monotonic_ns - monotonic_base_ns_;
  const std::int64_t rate = kMillion + drift_ppm_;
  // Round up, so that at the returned time the clock has reached monotonic_ns.
  if (std::int64_t scaled = 0; !__builtin_mul_overflow(local, kMillion, &scaled) &&
                               !__builtin_add_overflow(scaled, rate - 1, &scaled)) {
    return anchor_true_ns_ + scaled / rate;
  }
  return anchor_true_ns_ + static_cast<Nanoseconds>((Wide{local} * kMillion + rate - 1) / rate);
}

void NodeClock::set_drift_ppm(Nanoseconds true_now_ns, std::int64_t drift_ppm) {
  check(drift_ppm > -kMillion / 2, "a clock runs forward at more than half speed");
  monotonic_base_ns_ = monotonic_at(true_now_ns);
  anchor_true_ns_ = true_now_ns;
  drift_ppm_ = drift_ppm;
}

}  // namespace fencesim::sim
