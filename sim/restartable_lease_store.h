#pragma once
// The lease store as a process that crashes and restarts. Its table is the runtime's own
// MemoryLeaseRepository; every take, renewal and release is committed before its reply, as the
// ADR's reference SQL store does, so a crash loses nothing committed but does lose the process's
// memory: the restarted process builds a new table and loads each committed lease through the
// runtime's restore() (the path a real store takes when it comes back from its disk). Requests
// reach the table through this object, so instances and the checkpoint store keep one reference
// across restarts.
#include <memory>
#include <set>
#include <string>

#include "runtime/env.h"
#include "runtime/lease_repository.h"
#include "runtime/memory_lease_repository.h"
#include "runtime/observer.h"

namespace fencesim::sim {

class RestartableLeaseStore final : public runtime::ExecutionLeaseRepository {
 public:
  RestartableLeaseStore(runtime::Clock& clock, runtime::Observer& observer, std::string name);

  runtime::TakeResult take(const runtime::LeaseKey& key, const runtime::HolderId& holder,
                           runtime::Nanoseconds ttl_ns) override;
  runtime::RenewResult renew(const runtime::LeaseKey& key, const runtime::HolderId& holder,
                             runtime::Token token, runtime::Nanoseconds ttl_ns) override;
  runtime::ReleaseStatus release(const runtime::LeaseKey& key, const runtime::HolderId& holder,
                                 runtime::Token token) override;
  std::optional<runtime::Lease> read(const runtime::LeaseKey& key) override;

  // The process comes back from a crash: what it committed (the row of every key it ever took, as
  // the old table held it) is loaded into a new table with restore(); the old table is dropped.
  void restart();
  // A row the table holds before anything reached it (a table from a long-lived disk): loaded
  // through the runtime's restore(), and kept by every restart as a committed row.
  void inherit(const runtime::Lease& lease);
  int restarts() const { return restarts_; }

 private:
  runtime::Clock& clock_;
  runtime::Observer& observer_;
  std::string name_;
  std::unique_ptr<runtime::MemoryLeaseRepository> table_;
  // Every key a take named (the rows), ordered (never hashed): a restart loads them in one order.
  std::set<runtime::LeaseKey> keys_;
  int restarts_ = 0;
};

}  // namespace fencesim::sim
