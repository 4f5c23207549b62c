#pragma once
// signal-reason-kept: a step's signal is its lease's (runtime/abort_signal.h, AbortSignal and
// AbortController as in JavaScript), aborted with a reason when the lease is lost or given back,
// or when the pass learns that its tree was cancelled (#360: "its signal aborts with a cancel
// reason"). Its first reason is the one kept: a second abort (the release after a cancel, a loss
// after a cancel) does nothing, so a body that reads the reason reads what first stopped its work,
// and a decision that weighs "the signal's reason" (ADR-0023: a refusal is checked before it)
// weighs that one. Red team 31a's bug 32 (a later abort replacing the reason) passed every sweep:
// no body read the reason twice.
//
// Judged by the bodies' own reads of the reason (scenarios::look_at_signal_reason: what =
// "signal-reason", on the lease's node, tree key and token, outcome "live" or the reason's code by
// the workload's own catch): once a read of a lease's signal saw a reason, every later read of that
// signal sees the same one, and none sees it live again.
#include "properties/invariant.h"

namespace fencesim::properties {

class SignalReasonKept final : public Invariant {
 public:
  std::string_view name() const override { return "signal-reason-kept"; }
  std::string_view statement() const override {
    return "once a body read its lease's signal aborted with a reason, every later read of that "
           "signal (node, tree, token) reads the same reason: a second abort does not replace the "
           "first, and an aborted signal never reads live again";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

// The checker over a list of events (tests feed hand-made histories).
void check_signal_reason_kept(const std::vector<sim::HistoryEvent>& events,
                              std::vector<Violation>& out);

}  // namespace fencesim::properties
