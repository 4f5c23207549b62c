#pragma once
// A confirmNow() runs its #360 cancel check after its strict renewal too (ADR-0023, Decision:
// confirmNow() "also runs the #360 cancel checks"; runtime/execution_fence.h: before AND after):
// a confirm returns only if the tree was not cancelled when its renewal was already granted, just
// before the call that cannot check tokens. The check before the renewal alone lets a cancel
// recorded while the renewal is in flight through, and the unchecked call goes out for a tree that
// was cancelled before the confirm's answer came back.
//
// Judged from the checkpoint store's record of the cancel (kStoreCall, op cancel, outcome
// recorded), the lease store's record of the grants (kStoreCall, op renew, outcome renewed) and
// the workload's own record of the confirm (kObserved "confirm" "confirmed", made by
// scenarios::confirm_now): if the cancel of the confirm's tree was recorded before the earliest
// grant of a renewal of the confirm's token sent from its node after the confirm began, then every
// renewal that could have answered the confirm was granted after the cancel, so a read made after
// that answer finds the cancel, and the confirm must not return. Never the runtime's view of the
// cancel, never its code.
#include "properties/invariant.h"

namespace fencesim::properties {

class ConfirmCancelAfterRenewal final : public Invariant {
 public:
  std::string_view name() const override { return "confirm-cancel-after-renewal"; }
  std::string_view statement() const override {
    return "no confirmNow() returns to its step body when its tree's cancel was recorded before "
           "the lease store granted the renewal that answered the confirm (the cancel check runs "
           "after the strict renewal, not only before it)";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

// The checker over a list of events (tests feed hand-made histories).
void check_confirm_cancel_after_renewal(const std::vector<sim::HistoryEvent>& events,
                                        std::vector<Violation>& out);

}  // namespace fencesim::properties
