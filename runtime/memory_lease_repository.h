#pragma once
// The in-memory ExecutionLeaseRepository. Not thread-safe: one world (or one fiber thread) owns it;
// runtime/real/ wraps it with a mutex for the multi-threaded demo.
#include <map>

#include "runtime/env.h"
#include "runtime/lease_repository.h"
#include "runtime/observer.h"

namespace fencesim::runtime {

class MemoryLeaseRepository final : public ExecutionLeaseRepository {
 public:
  // `clock` is the store's clock; `name` labels the store-side events sent to `observer`.
  MemoryLeaseRepository(Clock& clock, Observer& observer, std::string name = "lease-store");

  TakeResult take(const LeaseKey& key, const HolderId& holder, Nanoseconds ttl_ns) override;
  RenewResult renew(const LeaseKey& key, const HolderId& holder, Token token,
                    Nanoseconds ttl_ns) override;
  ReleaseStatus release(const LeaseKey& key, const HolderId& holder, Token token) override;
  std::optional<Lease> read(const LeaseKey& key) override;
  // Loads a key's lease as it was persisted (a store restarting from what it committed).
  void restore(const Lease& lease);

 private:
  void emit(EventKind kind, const Lease& lease, std::string detail = {});

  Clock& clock_;
  Observer& observer_;
  std::string name_;
  std::map<LeaseKey, Lease> leases_;  // ordered: iteration never depends on hashing or addresses
};

}  // namespace fencesim::runtime
