#pragma once
// A confirmNow() runs the #360 cancel checks (ADR-0023, Decision): it reads the tree's cancel at
// the checkpoint store before it returns, so a confirm that returned was answered by such a read. A
// store that cannot be reached cannot say that the tree was not cancelled: a confirm whose reads
// all failed (dropped, partitioned, timed out) must throw, whether or not a cancel was recorded.
// Judged from the workload's own record of the confirm (its kObserved, made by
// scenarios::confirm_now) and the checkpoint store's record of the reads it answered (kStoreCall,
// op load), never from the runtime's view of the cancel.
#include "properties/invariant.h"

namespace fencesim::properties {

class ConfirmReadsCancel final : public Invariant {
 public:
  std::string_view name() const override { return "confirm-reads-cancel"; }
  std::string_view statement() const override {
    return "every confirmNow() that returned to its step body was answered by a read of its "
           "tree's checkpoint (the #360 cancel check) that the checkpoint store handled, sent from "
           "the body's node after the confirm began";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

// The checker over a list of events (tests feed hand-made histories).
void check_confirm_reads_cancel(const std::vector<sim::HistoryEvent>& events,
                                std::vector<Violation>& out);

}  // namespace fencesim::properties
