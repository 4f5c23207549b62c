#pragma once
// remote-wait-ends-held: a holder reports that a tree's remote-children wait ended only while it
// holds the tree's lease again. Judged from the holder's own reports of its lease (kLeaseTaken,
// kLeaseReleased, kLeaseLost) and of the wait, in the history's order.
#include <vector>

#include "properties/invariant.h"
#include "properties/invariants_builtin.h"

namespace fencesim::properties {

// ADR-0023: "The remote-children wait yields the lease only while no other step of the tree runs";
// the yield gives the lease back, and the wait is over for the tree only once the pass takes it
// again: a wait ends "under the lease taken back", where ending it cannot finish the tree beside
// another holder's step. A runtime that reports kRemoteWaitEnded before its retake says the tree's
// pass is back at work while its lease is still given back (and another instance may hold the
// tree), and in a pass whose retake is then refused it reports the end of a wait that never resumed
// (red team round 31a, bug 33). So every kRemoteWaitEnded carries a token its holder took
// (kLeaseTaken) and has neither released (the yield, or the pass's end) nor lost since: never
// between the yield's kLeaseReleased and the next kLeaseTaken of the key, never after a retake that
// was refused.
class RemoteWaitEndsHeld final : public Invariant {
 public:
  std::string_view name() const override { return "remote-wait-ends-held"; }
  std::string_view statement() const override {
    return "a holder reports a tree's remote-children wait ended only under a token of the tree's "
           "lease it took and has neither released (yielded) nor lost since: never between a "
           "yield and the retake, never in a pass whose retake was refused";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

void check_remote_wait_ends_held(const Events& events, std::vector<Violation>& out);

}  // namespace fencesim::properties
