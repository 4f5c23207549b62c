#pragma once
// Cancellation (#360), judged from the history: the store's record of a client's cancel (its
// kStoreCall, op cancel), what step bodies saw (the workload's kObserved records) and what the
// holders did, never from what the runtime believes about the cancel.
#include "properties/invariant.h"

namespace fencesim::properties {

class CancelIsFinal final : public Invariant {
 public:
  std::string_view name() const override { return "cancel-is-final"; }
  std::string_view statement() const override {
    return "once the checkpoint store recorded a tree's cancel: no confirmNow() of the tree that "
           "began after the recording returns to its step body, no step of the tree starts in a "
           "pass begun after the recording or after its holder saw the cancel, and the tree's "
           "completion never commits; a holder learns of or ends a cancel only after the store "
           "recorded it, and ends the tree only after finishing its placement";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

// The checker over a list of events (tests feed hand-made histories).
void check_cancel_is_final(const std::vector<sim::HistoryEvent>& events,
                           std::vector<Violation>& out);

}  // namespace fencesim::properties
