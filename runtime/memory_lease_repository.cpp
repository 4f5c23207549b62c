#include "runtime/memory_lease_repository.h"

#include <fmt/format.h>

#include "runtime/check.h"

namespace fencesim::runtime {

std::string_view to_string(RenewStatus status) {
  switch (status) {
    case RenewStatus::kRenewed:
      return "renewed";
    case RenewStatus::kStale:
      return "stale";
    case RenewStatus::kExpired:
      return "expired";
    case RenewStatus::kReleased:
      return "released";
    case RenewStatus::kNotHolder:
      return "not-holder";
    case RenewStatus::kUnknownKey:
      return "unknown-key";
  }
  return "unknown";
}

MemoryLeaseRepository::MemoryLeaseRepository(Clock& clock, Observer& observer, std::string name)
    : clock_(clock), observer_(observer), name_(std::move(name)) {}

TakeResult MemoryLeaseRepository::take(const LeaseKey& key, const HolderId& holder,
                                       Nanoseconds ttl_ns) {
  check(ttl_ns > 0, "a lease's ttl is positive");
  const Nanoseconds now = clock_.wall_ns();
  auto it = leases_.find(key);
  if (it != leases_.end() && it->second.live_at(now)) {
    return TakeResult{TakeStatus::kHeld, it->second};
  }
  const Token previous = it == leases_.end() ? kTokenNone : it->second.token;
  if (previous >= kTokenMax) {
    throw TokenOverflowError(fmt::format("lease epoch of {} would pass 2^53-1", to_string(key)));
  }
  Lease lease{key, holder, previous + 1, now + ttl_ns, false};
  leases_.insert_or_assign(key, lease);
  emit(EventKind::kStoreLeaseGranted, lease);
  return TakeResult{TakeStatus::kTaken, lease};
}

RenewResult MemoryLeaseRepository::renew(const LeaseKey& key, const HolderId& holder, Token token,
                                         Nanoseconds ttl_ns) {
  check(ttl_ns > 0, "a lease's ttl is positive");
  const Nanoseconds now = clock_.wall_ns();
  auto it = leases_.find(key);
  if (it == leases_.end()) return RenewResult{RenewStatus::kUnknownKey, std::nullopt};
  Lease& lease = it->second;
  RenewStatus status = RenewStatus::kRenewed;
  if (lease.token != token) {
    status = RenewStatus::kStale;
  } else if (lease.holder != holder) {
    status = RenewStatus::kNotHolder;
  } else if (lease.released) {
    status = RenewStatus::kReleased;
  } else if (!lease.live_at(now)) {
    status = RenewStatus::kExpired;
  }
  if (status != RenewStatus::kRenewed) {
    RuntimeEvent event{EventKind::kStoreRenewRefused,
                       holder,
                       key,
                       {},
                       token,
                       {},
                       std::string(to_string(status)),
                       static_cast<std::int64_t>(lease.token)};
    observer_.on_event(event);
    return RenewResult{status, lease};
  }
  lease.expires_at_ns = now + ttl_ns;
  // The event names the requester's holder and token, not the stored lease's: they are the same
  // for every renewal the contract allows, and a renewal it should have refused then shows as
  // what it is (another holder's, or a stale token's) instead of the holder renewing its own.
  observer_.on_event(RuntimeEvent{
      EventKind::kStoreLeaseRenewed, holder, key, {}, token, {}, {}, lease.expires_at_ns});
  return RenewResult{status, lease};
}

ReleaseStatus MemoryLeaseRepository::release(const LeaseKey& key, const HolderId& holder,
                                             Token token) {
  const Nanoseconds now = clock_.wall_ns();
  auto it = leases_.find(key);
  if (it == leases_.end()) return ReleaseStatus::kRefused;
  Lease& lease = it->second;
  if (lease.token != token || lease.holder != holder || !lease.live_at(now)) {
    return ReleaseStatus::kRefused;
  }
  lease.released = true;
  lease.expires_at_ns = now;
  emit(EventKind::kStoreLeaseReleased, lease);
  return ReleaseStatus::kReleased;
}

std::optional<Lease> MemoryLeaseRepository::read(const LeaseKey& key) {
  auto it = leases_.find(key);
  if (it == leases_.end()) return std::nullopt;
  return it->second;
}

void MemoryLeaseRepository::restore(const Lease& lease) {
  check(lease.token <= kTokenMax, "a persisted token is a safe integer");
  leases_.insert_or_assign(lease.key, lease);
}

void MemoryLeaseRepository::emit(EventKind kind, const Lease& lease, std::string detail) {
  RuntimeEvent event{kind,        lease.holder, lease.key,         {},
                     lease.token, {},           std::move(detail), lease.expires_at_ns};
  observer_.on_event(event);
}

}  // namespace fencesim::runtime
