#pragma once
// yield-lost-only-to-a-taker: a pass that gave its tree's lease back for a remote-children wait
// ends lease-lost before it takes the lease back only if the lease store granted the key to a
// later token than the one it gave back (after the yield, or before it when the store ended the
// lease early). Judged from the store's records of its takes, never from the runtime's own
// account of why its retake was refused.
#include <vector>

#include "properties/invariant.h"
#include "properties/invariants_builtin.h"

namespace fencesim::properties {

// ADR-0023: "The remote-children wait yields the lease only while no other step of the tree
// runs"; the yield lets another instance take the tree, and only that take ends the pass. A retake
// that the store refuses with the pass's own yielded lease (its release was lost, or another lane's
// take overtook the release still in flight) is no hand-over: nobody else took the tree, yet the
// old runtime ended the pass execution.lease-lost and left the tree to wait out its own lease (red
// team re-read 2026-12-04, finding 4). A grant of a later token to anyone, the yielding node
// included (a retake granted whose reply was lost), is a take the pass may lose to.
class YieldLostOnlyToATaker final : public Invariant {
 public:
  std::string_view name() const override { return "yield-lost-only-to-a-taker"; }
  std::string_view statement() const override {
    return "a pass that yielded its tree's lease ends lease-lost before taking it back only if "
           "the lease store granted the key to a later token than the one it gave back";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

void check_yield_lost_only_to_a_taker(const Events& events, std::vector<Violation>& out);

}  // namespace fencesim::properties
