#pragma once
// lost-only-when-lost: a holder reports a lease lost only when it was. Judged from the lease
// store's records (who holds the key, under which token, until when in true time), the holder's
// own reports of what reached it (the grants it received, the refusals it received), and the
// history; never from the runtime's decision code.
#include <vector>

#include "properties/invariant.h"
#include "properties/invariants_builtin.h"

namespace fencesim::properties {

// ADR-0023: ExecutionLeaseLostError is the hand-over error: the lease the step runs under is no
// longer its holder's. A confirm that could not reach a store (the renewal or the #360 cancel read
// was lost on the way) has not lost the lease: the store still holds it for its holder, no other
// holder took it, and the holder's belief has not run out. So no step, pass or fenced withdrawal
// ends plain execution.lease-lost while, at that instant, the store's lease of its key is still
// live (in true time) under its own holder and token, not released (at the store or by its
// holder: a yield or a pass's end gives the token back, judged elsewhere), no refusal of that token
// reached the holder, and the confirmedUntil of the last grant that reached it has not passed on
// its own clock. Runs outside the ADR's clock assumptions are not judged (the store's end in true
// time is then unknown).
class LostOnlyWhenLost final : public Invariant {
 public:
  std::string_view name() const override { return "lost-only-when-lost"; }
  std::string_view statement() const override {
    return "no step, pass or fenced withdrawal ends execution.lease-lost while the store shows "
           "its lease live under its own holder and token, unless another holder took it, it "
           "was released (at the store or by the holder), a refusal of it reached the holder, or the holder's belief ran out";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

void check_lost_only_when_lost(const Events& events, const RunFacts& facts,
                               std::vector<Violation>& out);

}  // namespace fencesim::properties
