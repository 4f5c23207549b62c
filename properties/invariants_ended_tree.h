#pragma once
// ended-tree-not-live: a withdrawal from a tree that ended is not refused as live. Judged from the
// stores' records of the tree's end (properties/tree_end.h) and the client's own record of when
// its withdrawal began (the world's withdrawal-began), never from the runtime's belief.
#include <vector>

#include "properties/invariant.h"
#include "properties/invariants_builtin.h"

namespace fencesim::properties {

// ADR-0023, Consequences: "A withdrawal made after the tree ended runs without a fence (its frame
// is rebuilt from the checkpoint)". A tree ends by its completion or, cancelled (#360), by its
// cancelled pass's finish (the placement queue finished it after its cancel was recorded). A
// withdrawal that began after either end may not be refused with "the tree is live" (issue 29
// item 1: only a completed tree used to count as ended, so a cancelled tree refused every
// withdrawal forever). A refusal because a store could not be read is not judged. While two
// withdrawals of one step of one tree overlap on one node, the earliest one still open is the one
// judged (a refusal is never pinned on a later withdrawal than it may belong to).
class EndedTreeNotLive final : public Invariant {
 public:
  std::string_view name() const override { return "ended-tree-not-live"; }
  std::string_view statement() const override {
    return "a withdrawal that began after its tree ended (the store committed its completion, or "
           "finished its placement after recording its cancel) is not refused as a live tree";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

void check_ended_tree_not_live(const Events& events, std::vector<Violation>& out);

}  // namespace fencesim::properties
