#pragma once
// A route to a lease store that passes every call on: a test derives from it and overrides only
// the call it troubles (drops, delays, fails), and hands it to LeasesFixture::add_instance or to a
// HeldLease. One base instead of a hand-written pass-through per test.
#include <optional>

#include "runtime/lease_repository.h"

namespace fencesim::runtime::testing {

class LeasesRoute : public ExecutionLeaseRepository {
 public:
  explicit LeasesRoute(ExecutionLeaseRepository& store) : store_(store) {}
  TakeResult take(const LeaseKey& key, const HolderId& holder, Nanoseconds ttl_ns) override {
    return store_.take(key, holder, ttl_ns);
  }
  RenewResult renew(const LeaseKey& key, const HolderId& holder, Token token,
                    Nanoseconds ttl_ns) override {
    return store_.renew(key, holder, token, ttl_ns);
  }
  ReleaseStatus release(const LeaseKey& key, const HolderId& holder, Token token) override {
    return store_.release(key, holder, token);
  }
  std::optional<Lease> read(const LeaseKey& key) override { return store_.read(key); }

 protected:
  ExecutionLeaseRepository& store_;
};

}  // namespace fencesim::runtime::testing
