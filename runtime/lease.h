#pragma once
// A lease of the lease table (ADR-0023) and the replies of its calls: the values the runtime, the
// stores, the simulated network and the history pass around. The table's contract and interface
// are in runtime/lease_repository.h; a file that only carries leases includes this one, so that a
// change to the interface rebuilds its implementations and callers, not every file that records a
// lease.
#include <optional>
#include <string_view>

#include "runtime/types.h"

namespace fencesim::runtime {

struct Lease {
  LeaseKey key;
  HolderId holder;
  Token token = kTokenNone;
  Nanoseconds expires_at_ns = 0;  // the store's wall clock
  bool released = false;

  bool live_at(Nanoseconds store_now_ns) const { return !released && store_now_ns < expires_at_ns; }
  friend bool operator==(const Lease&, const Lease&) = default;
};

enum class TakeStatus { kTaken, kHeld };
struct TakeResult {
  TakeStatus status;
  Lease lease;  // kTaken: the new lease; kHeld: the live lease that refused the take
};

enum class RenewStatus { kRenewed, kStale, kExpired, kReleased, kNotHolder, kUnknownKey };
std::string_view to_string(RenewStatus status);
struct RenewResult {
  RenewStatus status;
  std::optional<Lease> lease;  // the key's current lease after the call
};

enum class ReleaseStatus { kReleased, kRefused };

}  // namespace fencesim::runtime
