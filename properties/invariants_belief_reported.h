#pragma once
// belief-reported-as-read: the confirmedUntil a holder reports when it takes or renews a lease
// (kLeaseTaken, kLeaseRenewed: value = confirmedUntil on its monotonic clock) is the one its
// fence reads. Whatever watches the runtime's reports (the timeline, a metric of how long leases
// are believed, this harness's readers of local belief) is told the belief the steps act on.
#include <vector>

#include "properties/invariant.h"
#include "properties/invariants_builtin.h"

namespace fencesim::properties {

// ADR-0023: "confirmedUntil" is a fact of the fence, read live. Red team 31a's bug 2 reported a
// take's send time as its confirmedUntil: the fence read the true belief, the report an earlier
// one, and every oracle bounded the belief from above only (conservative-belief), so nothing
// noticed. Judged on every fence read a step body made while assertHeld() passed (the workload's
// "fence" records, scenarios::read_fence): its confirmedUntil equals the latest belief its
// holder's node reported for that key and token before the read.
class BeliefReportedAsRead final : public Invariant {
 public:
  std::string_view name() const override { return "belief-reported-as-read"; }
  std::string_view statement() const override {
    return "the confirmedUntil a holder reports on taking or renewing a lease is the one its "
           "fence reads while the lease is held";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

void check_belief_reported_as_read(const Events& events, std::vector<Violation>& out);

}  // namespace fencesim::properties
