#pragma once
// returned-withdrawal-not-lost: a withdrawal inside a pass runs in its step's frame, with that
// step's fence (ADR-0023, Consequences), and the runtime reports how it ended (kWithdrawalEnded:
// "ok" or the code its failure was decided as). A body that returned after its holder gave the
// lease back (the pass ended, or its remote-children wait yielded the lease), nothing having lost
// the lease before that, succeeded: what it wrote, it wrote while the lease was held, and a lease
// given back is not a lease lost (runtime/instance.h). So its end is reported "ok"; a loss there
// tells the client that a withdrawal failed which did not (red team 31a's bug 27: a released
// lease counted as lost at the withdrawal's end, which every sweep passed: no scenario's
// withdrawal outlived its pass, and no oracle judged a withdrawal's "ok").
//
// Judged by records the runtime does not make: the body's own record that it returned
// (scenarios::record_withdrawal_body_returned; the runtime's kWithdrawalEnded comes right after it
// on the same node, no fiber switch between), and the holder's reports of its token before the
// release: no loss (kLeaseLost), no refusal that reached it (renewal, write or checkpoint), and
// the release sent while its belief (the confirmedUntil of its last grant or renewal) still ran.
// A body that threw, an unfenced withdrawal, and a lease lost or expired first are not judged.
#include "properties/invariant.h"

namespace fencesim::properties {

class ReturnedWithdrawalNotLost final : public Invariant {
 public:
  std::string_view name() const override { return "returned-withdrawal-not-lost"; }
  std::string_view statement() const override {
    return "a fenced withdrawal whose body returned after its holder gave the lease back, nothing "
           "having lost the lease first, is reported as ended ok";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

// The checker over a list of events (tests feed hand-made histories).
void check_returned_withdrawal_not_lost(const std::vector<sim::HistoryEvent>& events,
                                        std::vector<Violation>& out);

}  // namespace fencesim::properties
