#pragma once
// ended-pass-gives-back-its-lease: a pass that ended (its tree completed or cancelled, or the pass
// abandoned) does not keep its lease. Judged from the holder's own reports of what became of the
// lease of the pass's token (released or lost), never from the runtime's lease states.
#include <vector>

#include "properties/invariant.h"
#include "properties/invariants_builtin.h"

namespace fencesim::properties {

// A tree's lease serves its pass: when the pass ends, the holder gives the lease back (the
// runtime's lease lifecycle, runtime/held_lease.h: "gives the lease back (the tree ended, or
// yields during a remote-children wait)"), so that an abandoned tree is taken by the next
// instance at once rather than after the lease's expiry, and a completed one is not renewed for
// as long as its holder lives. Red team 41c-18: a pass that completed its tree kept the lease and
// renewed it forever, and every sweep passed. A pass whose process died after its end is not
// judged (a killed process reports nothing; its lease ends by expiry at the store).
class EndedPassGivesBackItsLease final : public Invariant {
 public:
  std::string_view name() const override { return "ended-pass-gives-back-its-lease"; }
  std::string_view statement() const override {
    return "a pass that ended (its tree completed or cancelled, or the pass abandoned) gave its "
           "lease back or had lost it: its holder reported the lease of the pass's token released "
           "or lost, unless the holder's process died after the end";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

void check_ended_pass_gives_back_its_lease(const Events& events, std::vector<Violation>& out);

}  // namespace fencesim::properties
