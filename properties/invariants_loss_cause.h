#pragma once
// loss-after-its-cause: a holder's report that it lost a token because a store refused it comes
// after its report that the refusal reached it. Judged from the holder's own reports, in the
// history's order.
#include <vector>

#include "properties/invariant.h"
#include "properties/invariants_builtin.h"

namespace fencesim::properties {

// ExecutionLeaseRepository's contract (ADR-0023: the token is "written into
// ExecutionLeaseRepository's contract"): a renewal the store refuses ends the token, and a lease
// lost "never comes back". The holder learns that from the refusal's reply, so its kLeaseLost
// that names a refused renewal ("renew-refused:<why>") follows its kRenewRefused of the same key
// and token with that reason, and one that names a refused checkpoint ("checkpoint-refused")
// follows its kCheckpointRefused of that token. A loss reported first (red team round 31a, bug
// 36) is a history whose cause comes after its effect: a reader of it (an operator, the other
// oracles that judge what follows a refusal) sees the holder stop before anything stopped it.
class LossAfterItsCause final : public Invariant {
 public:
  std::string_view name() const override { return "loss-after-its-cause"; }
  std::string_view statement() const override {
    return "a holder's lease-lost that names a refused renewal (or checkpoint) comes after that "
           "holder's renew-refused (checkpoint-refused) of the same key and token, for the reason "
           "it names";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

void check_loss_after_its_cause(const Events& events, std::vector<Violation>& out);

}  // namespace fencesim::properties
