#pragma once
// What a holder reports of its checkpoints is what the checkpoint store recorded. The runtime's
// events kCheckpointCommitted and kCheckpointRefused (a step's path, or "<tree>" for the tree's
// completion) and kTreeCompleted are what its observers (metrics, a caller awaiting the run, the
// timeline) are told; the store's own record of each commit it judged (kStoreCall: op, key, step
// path, token, outcome) is the truth. Judged by the request's token, which names one holder's
// pass, never by the runtime's belief:
// - a commit reported committed was recorded committed under that token;
// - a commit reported refused was recorded refused (or, for the tree, cancelled) under that token;
// - a tree reported completed had its completion recorded (by this pass or an earlier one: a
//   committed completion, or a load the store answered "completed") and its placement finished at
//   the queue before the report.
// - a write reported accepted (kWriteAccepted, detail applied or deduplicated) was given that
//   verdict by the sink (kStoreCall, op write: the sending node, scope key, token, idempotency key,
//   outcome) before the report, for a write the reporting step sent (kWriteSent: its idempotency
//   key) from that node under that scope key and token. ADR-0023: exactly-once is possible where "the
//   external system checks the token and the idempotency key in one transaction" and "the
//   framework never claims it on its own": the sink's verdict is the truth, and a report of
//   "applied" for a write the sink deduplicated tells observers (metrics, the timeline) of an
//   effect that did not happen then (red team 31a: kWriteAccepted always said "applied").
// Found by the mechanical mutants (tools/mutate/, session 11): with the completion commit's verdict
// negated, a stale pass reported its tree completed (and finished its placement) though the store
// refused its completion, and every committed completion was reported refused; every other oracle
// judged the stores' records or the bodies' views, never the runtime's reports against them.
#include "properties/invariants_builtin.h"

namespace fencesim::properties {

class ReportedAsRecorded final : public Invariant {
 public:
  std::string_view name() const override { return "reported-as-recorded"; }
  std::string_view statement() const override {
    return "a holder reports a checkpoint committed or refused only as the checkpoint store "
           "recorded that commit under its token, a tree completed only after the store "
           "recorded the tree's completion and the queue finished its placement, and a write "
           "accepted only with a verdict (applied or deduplicated) the sink gave that write";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

void check_reported_as_recorded(const Events& events, std::vector<Violation>& out);

}  // namespace fencesim::properties
