#include "stores/row_lease_repository.h"

#include <fmt/format.h>

#include "runtime/check.h"

namespace fencesim::stores {

using runtime::EventKind;
using runtime::ReleaseStatus;
using runtime::RenewResult;
using runtime::RenewStatus;
using runtime::RuntimeEvent;
using runtime::TakeResult;
using runtime::TakeStatus;

RowLeaseRepository::RowLeaseRepository(runtime::Observer& observer) : observer_(observer) {}

TakeResult RowLeaseRepository::take(const LeaseKey& key, const HolderId& holder,
                                    Nanoseconds ttl_ns) {
  check(ttl_ns > 0, "a lease's ttl is positive");
  TakeResult result{TakeStatus::kHeld, {}};
  transact_row(key, [&](const std::optional<Lease>& row, Nanoseconds now) -> std::optional<Lease> {
    if (row && row->live_at(now)) {
      result = TakeResult{TakeStatus::kHeld, *row};
      return std::nullopt;
    }
    const Token previous = row ? row->token : runtime::kTokenNone;
    if (previous >= runtime::kTokenMax) {
      throw runtime::TokenOverflowError(
          fmt::format("lease epoch of {} would pass 2^53-1", runtime::to_string(key)));
    }
    result = TakeResult{TakeStatus::kTaken, Lease{key, holder, previous + 1, now + ttl_ns, false}};
    return result.lease;
  });
  if (result.status == TakeStatus::kTaken) {
    emit(RuntimeEvent{EventKind::kStoreLeaseGranted,
                      result.lease.holder,
                      key,
                      {},
                      result.lease.token,
                      {},
                      {},
                      result.lease.expires_at_ns});
  }
  return result;
}

RenewResult RowLeaseRepository::renew(const LeaseKey& key, const HolderId& holder, Token token,
                                      Nanoseconds ttl_ns) {
  check(ttl_ns > 0, "a lease's ttl is positive");
  RenewResult result{RenewStatus::kUnknownKey, std::nullopt};
  transact_row(key, [&](const std::optional<Lease>& row, Nanoseconds now) -> std::optional<Lease> {
    result = RenewResult{RenewStatus::kUnknownKey, row};
    if (!row) return std::nullopt;
    // The same order of reasons as the in-memory store: the token first, so a stale holder
    // learns it is stale whatever else is true of the current lease.
    if (row->token != token) {
      result.status = RenewStatus::kStale;
    } else if (row->holder != holder) {
      result.status = RenewStatus::kNotHolder;
    } else if (row->released) {
      result.status = RenewStatus::kReleased;
    } else if (!row->live_at(now)) {
      result.status = RenewStatus::kExpired;
    } else {
      result.status = RenewStatus::kRenewed;
      result.lease->expires_at_ns = now + ttl_ns;
      return result.lease;
    }
    return std::nullopt;
  });
  if (result.status == RenewStatus::kRenewed) {
    emit(RuntimeEvent{EventKind::kStoreLeaseRenewed,
                      holder,
                      key,
                      {},
                      token,
                      {},
                      {},
                      result.lease->expires_at_ns});
  } else if (result.status != RenewStatus::kUnknownKey) {
    emit(RuntimeEvent{EventKind::kStoreRenewRefused,
                      holder,
                      key,
                      {},
                      token,
                      {},
                      std::string(runtime::to_string(result.status)),
                      static_cast<std::int64_t>(result.lease->token)});
  }
  return result;
}

ReleaseStatus RowLeaseRepository::release(const LeaseKey& key, const HolderId& holder,
                                          Token token) {
  std::optional<Lease> released;
  transact_row(key, [&](const std::optional<Lease>& row, Nanoseconds now) -> std::optional<Lease> {
    released.reset();
    if (!row || row->token != token || row->holder != holder || !row->live_at(now)) {
      return std::nullopt;
    }
    released = *row;
    released->released = true;
    released->expires_at_ns = now;
    return released;
  });
  if (!released) return ReleaseStatus::kRefused;
  emit(RuntimeEvent{EventKind::kStoreLeaseReleased,
                    released->holder,
                    key,
                    {},
                    released->token,
                    {},
                    {},
                    released->expires_at_ns});
  return ReleaseStatus::kReleased;
}

void RowLeaseRepository::emit(RuntimeEvent event) {
  observer_.on_event(event);
}

}  // namespace fencesim::stores
