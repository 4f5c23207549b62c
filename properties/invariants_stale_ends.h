#pragma once
// Two judgements of a holder whose lease ran out, from the lease store's grants (the oracle's own
// local expiry, properties/local_expiry.h) and the workload's and the runtime's records of what
// ended; never from the runtime's belief.
#include <vector>

#include "properties/invariant.h"
#include "properties/invariants_builtin.h"

namespace fencesim::properties {

// ADR-0023: confirmNow() is "a strict renewal ... which also runs the #360 cancel checks", and a
// cancel does not hide a lost lease (the runtime's own rule for a pass, tree_runner.cpp): a
// confirm that ends at or after the local expiry the store's grants give its token is a stale
// holder's, and it throws the loss (execution.lease-lost...), never the tree's cancel: told
// "cancelled", the body would run its cancel handling (a compensation that cannot check tokens)
// as a stale holder (red team re-read 2026-12-04, finding 6). Judged from the workload's record of
// what the confirm threw (scenarios::confirm_now).
class ConfirmCancelHidesNoLoss final : public Invariant {
 public:
  std::string_view name() const override { return "confirm-cancel-hides-no-loss"; }
  std::string_view statement() const override {
    return "a confirmNow() that ends at or after the local expiry the store's grants give its "
           "token does not throw the tree's cancel: a stale holder is told its lease was lost";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

// ADR-0023: "A step whose lease's own expiry fires before its fenced write settles still ends its
// call with ExecutionLeaseLostError", and a refusal is "checked before the signal's reason at
// every place the runtime decides about a failure". A withdrawal made inside a pass runs in its
// step's frame under the step's lease, and its end is decided like the step's: a fenced
// withdrawal that ends at or after the local expiry the store's grants give its token ends
// execution.lease-lost... (a refusal's code is of that family), never 'ok', a plain error or the
// cancel (red team re-read 2026-12-04, finding 3: the withdrawal's decision skipped the pass's
// held-now check, its late refusal and its rule that a lost lease overrides a cancel). A lease
// its holder gave back (kLeaseReleased: the pass ended or yielded) is not lost, and is not judged.
class StaleWithdrawalEndsLost final : public Invariant {
 public:
  std::string_view name() const override { return "stale-withdrawal-ends-lost"; }
  std::string_view statement() const override {
    return "a fenced withdrawal that ends at or after the local expiry the store's grants give "
           "its token ends execution.lease-lost..., never ok, a plain error or the cancel";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

void check_confirm_cancel_hides_no_loss(const Events& events, const LocalExpiryPolicy& policy,
                                        std::vector<Violation>& out);
void check_stale_withdrawal_ends_lost(const Events& events, const LocalExpiryPolicy& policy,
                                      std::vector<Violation>& out);

}  // namespace fencesim::properties
