#pragma once
// The leases an instance asks for are the world's terms (sim/lease_terms.h: ADR-0023's 30 s lease
// unless a scenario set another), judged from the lease store's record of each take and renewal
// it handled (kStoreCall), never from the runtime's own policy: a holder asking for 31 s keeps a
// frozen holder's tree from the next one a second longer than the ADR says; 29 s lets it go a
// second early.
#include "properties/invariants_builtin.h"

namespace fencesim::properties {

class LeaseTermsKept final : public Invariant {
 public:
  std::string_view name() const override { return "lease-terms"; }
  std::string_view statement() const override {
    return "every take and renewal asks the lease store for the lease of the world's terms "
           "(the ADR's 30 s unless the scenario set another), no longer and no shorter";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

void check_lease_terms(const Events& events, runtime::Nanoseconds ttl_ns,
                       std::vector<Violation>& out);

}  // namespace fencesim::properties
