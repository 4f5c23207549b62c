#pragma once
// How an instance holds its leases: how long, how often it renews, and how much it distrusts its
// own clock.
#include <cstdint>

#include "runtime/types.h"

namespace fencesim::runtime {

struct LeasePolicy {
  Nanoseconds ttl_ns = 30 * kSecond;
  Nanoseconds renew_interval_ns = 10 * kSecond;
  // The bound on the rate error of any clock against true time, in parts per million. The holder
  // and the store may err in opposite directions, so the margin covers twice the bound.
  std::int64_t drift_bound_ppm = 1000;
  // A fixed part of the margin, for scheduling delay between reading the clock and sending.
  Nanoseconds drift_margin_min_ns = 10 * kMillisecond;

  // What the holder subtracts from ttl when it computes confirmedUntil.
  Nanoseconds drift_margin_ns() const {
    return ttl_ns / 1'000'000 * 2 * drift_bound_ppm + drift_margin_min_ns;
  }
  // confirmedUntil for a renewal or take sent at `sent_monotonic_ns`: from the SEND time, never the
  // reply's receive time, because the store's expiry counts from when it received the request,
  // which is after the send.
  Nanoseconds confirmed_until_ns(Nanoseconds sent_monotonic_ns) const {
    return sent_monotonic_ns + ttl_ns - drift_margin_ns();
  }
};

}  // namespace fencesim::runtime
