#pragma once
// The lease terms a world holds its instances to: the ADR's 30 s lease, and the renewal and
// clock-drift terms of DESIGN.md. The harness owns them, so the oracles judge the runtime against
// these numbers, not against the runtime's own LeasePolicy (whose defaults are code under test: a
// runtime asking for 31 s leases, or trusting its clock more than the world's drift allows, must
// be caught, not followed).
#include <cstdint>

#include "runtime/lease_policy.h"
#include "runtime/types.h"

namespace fencesim::sim {

// The last token the ADR allows: tokens are JavaScript safe integers (no bigint), so a key's epochs
// are spent at 2^53 - 1 and a take past it is an error, never a grant. The harness's own number,
// not the runtime's kTokenMax: the world's liveness watcher, the oracles and the scenarios judge
// the runtime against it.
inline constexpr runtime::Token kLastSafeToken = 9'007'199'254'740'991;

struct LeaseTerms {
  runtime::Nanoseconds ttl_ns = 30'000'000'000;             // ADR-0023: "its 30 s lease"
  runtime::Nanoseconds renew_interval_ns = 10'000'000'000;  // a third of the lease
  // The bound on any clock's rate error against true time (the world keeps drift within it).
  std::int64_t drift_bound_ppm = 1000;
  runtime::Nanoseconds drift_margin_min_ns = 10'000'000;  // 10 ms of scheduling delay

  // What a holder may subtract at least from a grant's ttl for its belief: twice the bound (the
  // holder's and the store's clocks may err in opposite directions) over the ttl, plus the fixed
  // part. Written here from DESIGN.md, not taken from the runtime.
  runtime::Nanoseconds drift_margin_ns() const {
    return 2 * drift_bound_ppm * (ttl_ns / 1'000'000) + drift_margin_min_ns;
  }

  // The policy an instance runs with: the runtime's own defaults (what it does when nobody tells
  // it otherwise), with only the terms a scenario changed from the ADR's set on it. A scenario
  // that keeps the ADR's terms thus tests the defaults the runtime ships with.
  runtime::LeasePolicy runtime_policy() const;
};

}  // namespace fencesim::sim
