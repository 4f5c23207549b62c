#pragma once
// ExecutionLeaseRepository: the lease table of ADR-0023.
//
// Contract (every implementation, in memory, SQLite or PostgreSQL, passes
// runtime/tests/lease_repository_contract.h):
// - Expiry is judged by the store's own clock (`Clock::wall_ns` of the store), never the caller's.
// - The token of a lease is the epoch of its key: 1 for the first holder of the key, + 1 with every
//   take, counted per key. Never a store-wide revision or sequence: two keys' epochs are
//   independent.
// - take(key, holder, ttl) succeeds only when the key has no live lease (none yet, expired at the
//   store's now, or released); it then grants epoch + 1 until now + ttl. A live lease refuses the
//   take, even for its own holder: a holder that lost track of its lease takes a new epoch.
// - renew(key, holder, token, ttl) extends to now + ttl only when the key's current epoch is
//   `token`, its holder is `holder`, and it is neither expired nor released. A late or stale
//   renewal never extends, resurrects or steals a lease.
// - release(key, holder, token) ends a live lease of that holder and token at once; else refused.
// - read(key) returns the current lease (live or not), if the key was ever taken.
// - Epochs past kTokenMax (2^53 - 1) are an error (TokenOverflowError), never a wrap.
// A call that cannot reach the store throws StoreUnavailableError: the caller cannot know whether
// it took effect.
#include <optional>

#include "runtime/lease.h"
#include "runtime/store_errors.h"
#include "runtime/types.h"

namespace fencesim::runtime {

class ExecutionLeaseRepository {
 public:
  virtual ~ExecutionLeaseRepository() = default;
  virtual TakeResult take(const LeaseKey& key, const HolderId& holder, Nanoseconds ttl_ns) = 0;
  virtual RenewResult renew(const LeaseKey& key, const HolderId& holder, Token token,
                            Nanoseconds ttl_ns) = 0;
  virtual ReleaseStatus release(const LeaseKey& key, const HolderId& holder, Token token) = 0;
  virtual std::optional<Lease> read(const LeaseKey& key) = 0;
};

}  // namespace fencesim::runtime
