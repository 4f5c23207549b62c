#pragma once
// What a holder reports of a cancel (#360) is what a pass learns once, while it runs: "whoever
// learns it first aborts the signal of the steps running under the pass's lease with
// ExecutionCancelledError and reports kCancelSeen once" (runtime/tree_cancel.h), and the watcher
// reads the store "until the pass is over or the cancel is seen". So:
// - a pass reports kCancelSeen at most once (a commit_tree answered "cancelled" after the watcher
//   saw the cancel during the last step is not a second learning);
// - no kCancelSeen comes after its pass ended (its kTreeCompleted, kTreeAbandoned, kTreeCancelled
//   or the kErrorClassified that decides its end): a watcher that wakes after the pass is over
//   reads nothing, and aborts no signal of a lease the pass released. One exception, which the
//   honest runtime shows (completion-in-flight pct seed 5): a read of the tree's checkpoint the
//   pass's node sent while the pass ran (the watcher's load, in flight at the end) whose answer
//   (the store's kLoad record: from, sent_ns, cancelled) carried the cancel may be reported after
//   the end, as the pass's only learning; a read sent after the end may not.
// A pass is one kTreeStarted of a holder over a tree until that pass's end; its tokens are the
// one it started with and any it took back after a yield (kLeaseTaken of the holder for the tree
// while the pass runs). Judged from the runtime's reports only, never from its code: red team 31a
// (a learn that dropped its "not yet seen" test; a watcher that no longer checked that its pass
// was over after its sleep) passed every oracle, since none judged what the runtime reports.
#include "properties/invariant.h"

namespace fencesim::properties {

class CancelSeenOncePerPass final : public Invariant {
 public:
  std::string_view name() const override { return "cancel-seen-once-per-pass"; }
  std::string_view statement() const override {
    return "a pass (holder, tree, its tokens) reports that it learned of its tree's cancel at most "
           "once, and never after the pass ended (completed, abandoned, cancelled or its end "
           "decided)";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

// The checker over a list of events (tests feed hand-made histories).
void check_cancel_seen_once_per_pass(const std::vector<sim::HistoryEvent>& events,
                                     std::vector<Violation>& out);

}  // namespace fencesim::properties
