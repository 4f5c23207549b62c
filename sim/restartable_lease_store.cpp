#include "sim/restartable_lease_store.h"

#include <utility>
#include <vector>

namespace fencesim::sim {

RestartableLeaseStore::RestartableLeaseStore(runtime::Clock& clock, runtime::Observer& observer,
                                             std::string name)
    : clock_(clock),
      observer_(observer),
      name_(std::move(name)),
      table_(std::make_unique<runtime::MemoryLeaseRepository>(clock_, observer_, name_)) {}

runtime::TakeResult RestartableLeaseStore::take(const runtime::LeaseKey& key,
                                                const runtime::HolderId& holder,
                                                runtime::Nanoseconds ttl_ns) {
  // Only a take makes a row (renewals, releases and reads of an unknown key change nothing).
  keys_.insert(key);
  return table_->take(key, holder, ttl_ns);
}

runtime::RenewResult RestartableLeaseStore::renew(const runtime::LeaseKey& key,
                                                  const runtime::HolderId& holder,
                                                  runtime::Token token,
                                                  runtime::Nanoseconds ttl_ns) {
  return table_->renew(key, holder, token, ttl_ns);
}

runtime::ReleaseStatus RestartableLeaseStore::release(const runtime::LeaseKey& key,
                                                      const runtime::HolderId& holder,
                                                      runtime::Token token) {
  return table_->release(key, holder, token);
}

std::optional<runtime::Lease> RestartableLeaseStore::read(const runtime::LeaseKey& key) {
  return table_->read(key);
}

void RestartableLeaseStore::inherit(const runtime::Lease& lease) {
  table_->restore(lease);
  keys_.insert(lease.key);
}

void RestartableLeaseStore::restart() {
  // What was committed: every row the old table holds (expired and released ones included: their
  // epochs go on counting from there).
  std::vector<runtime::Lease> committed;
  for (const runtime::LeaseKey& key : keys_) {
    if (std::optional<runtime::Lease> lease = table_->read(key)) committed.push_back(*lease);
  }
  auto fresh = std::make_unique<runtime::MemoryLeaseRepository>(clock_, observer_, name_);
  for (const runtime::Lease& lease : committed) fresh->restore(lease);
  table_ = std::move(fresh);
  ++restarts_;
}

}  // namespace fencesim::sim
