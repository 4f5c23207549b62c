#pragma once
// store-reported-as-replied: what a store implementation reports of a request it judged (the
// runtime's kStoreLeaseGranted, kStoreLeaseRenewed, kStoreCheckpointCommitted and
// kStoreCheckpointRefused, told to its observer while it handles the request) is what it replied
// (the simulator's record of that request at the store's node, kStoreCall: its token, step, the
// lease in the reply, the epoch a commit was judged at). The stores' reports feed the timeline, a
// store's metrics and oracles of their own (fenced-checkpoint reads a commit's epoch from the
// report): a report that says something else than the reply misleads all of them.
#include <vector>

#include "properties/invariant.h"
#include "properties/invariants_builtin.h"

namespace fencesim::properties {

// Red team 31a's bugs 15 (a refused commit reported with the requester's token as the key's
// epoch) and 23 (a renewal reported with the expiry before it) changed only the reports: every
// oracle judged the replies or the requesters, and both survived every sweep. A report is paired
// with the next record of a request for the same key at the same node: the store reports while it
// handles the request and the simulator records the request once the handler returns, with no
// other event of that node between them.
class StoreReportedAsReplied final : public Invariant {
 public:
  std::string_view name() const override { return "store-reported-as-replied"; }
  std::string_view statement() const override {
    return "what a lease or checkpoint store reports of a take, a renewal or a commit it judged "
           "is what it replied to that request";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

void check_store_reported_as_replied(const Events& events, std::vector<Violation>& out);

}  // namespace fencesim::properties
