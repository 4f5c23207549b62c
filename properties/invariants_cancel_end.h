#pragma once
// cancel-ends-no-later-step: a cancelled tree is ended only by a holder that no later holder's
// step outruns. Judged from the stores' records (the lease store's grants, the checkpoint store's
// recorded cancel, the placement queue's finish) and the steps' starts and ends, never from the
// runtime's belief.
#include <vector>

#include "properties/invariant.h"
#include "properties/invariants_builtin.h"

namespace fencesim::properties {

// ADR-0023, Consequences: "A withdrawal made after the tree ended runs without a fence"; a
// cancelled tree (#360) ends by its cancelled pass's finish (the placement queue finishes it after
// the checkpoint store recorded the cancel), and "a recorded cancel alone is not the end (its
// holder may still run a step)". So the finish that ends a cancelled tree may not come while a
// step of that tree runs (started, not yet ended) under a token later than every token the lease
// store granted the finishing node for the tree's key: that step's holder took the tree after the
// finisher, is live, and a withdrawal elsewhere would now run unfenced beside it (red team re-read
// 2026-12-04, finding 1: a cancel seen while the lease was yielded for a remote-children wait
// finished the placement without taking the lease back). A stale finisher's own steps, and steps
// of earlier tokens (a frozen former holder's), are not judged.
class CancelEndsNoLaterStep final : public Invariant {
 public:
  std::string_view name() const override { return "cancel-ends-no-later-step"; }
  std::string_view statement() const override {
    return "the finish that ends a cancelled tree does not come while a step of that tree runs "
           "under a token later than every token the lease store granted the finishing node";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

void check_cancel_ends_no_later_step(const Events& events, std::vector<Violation>& out);

}  // namespace fencesim::properties
