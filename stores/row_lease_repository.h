#pragma once
// The lease contract (runtime/lease_repository.h) over a table with one row per lease key, written
// once for every database: a backend supplies only `transact_row`, which locks the key's row
// against every other writer, reads the store's now AFTER the lock is held, lets the rules below
// decide, and writes back what they decided, all in one transaction. The epoch lives in the row,
// so epochs are counted per key, never by a database sequence or revision.
#include <functional>
#include <optional>
#include <string>

#include "runtime/lease_repository.h"
#include "runtime/observer.h"

namespace fencesim::stores {

using runtime::HolderId;
using runtime::Lease;
using runtime::LeaseKey;
using runtime::Nanoseconds;
using runtime::Token;

// Given the key's row (none if never taken) and the store's now, returns the row to store, or
// nothing to leave the row as it is. Called again if a backend retries its transaction.
using RowDecision =
    std::function<std::optional<Lease>(const std::optional<Lease>& row, Nanoseconds now_ns)>;

class RowLeaseRepository : public runtime::ExecutionLeaseRepository {
 public:
  // The store-side events (grants, renewals, refusals, releases) go to `observer`, as the
  // in-memory store reports them.
  explicit RowLeaseRepository(runtime::Observer& observer);

  runtime::TakeResult take(const LeaseKey& key, const HolderId& holder,
                           Nanoseconds ttl_ns) override;
  runtime::RenewResult renew(const LeaseKey& key, const HolderId& holder, Token token,
                             Nanoseconds ttl_ns) override;
  runtime::ReleaseStatus release(const LeaseKey& key, const HolderId& holder, Token token) override;

 protected:
  // One transaction: lock the key's row (or the place where it would be inserted), read the
  // store's now, call `decide`, store its row if any. Throws runtime::StoreUnavailableError when
  // the store cannot be reached, and lets TokenOverflowError from `decide` roll back.
  virtual void transact_row(const LeaseKey& key, const RowDecision& decide) = 0;

 private:
  void emit(runtime::RuntimeEvent event);

  runtime::Observer& observer_;
};

}  // namespace fencesim::stores
