#pragma once
// Refusal hands over (ADR-0023, Decision: "A refusal is a hand-over error: ExecutionFencedError
// ... the holder of its token is stopped with it"; the fence's fenced(observedToken)). Judged from
// the workload's own record of a step body that called fenced(observed) with what an external
// system reported (scenarios::reconcile_step: what = "fenced", effect = the observed token,
// outcome = the code of the error the body got) and from what the holder did afterwards, never
// from the runtime's classes or beliefs. Whatever the observed token (later than the holder's own,
// equal, or older: a system whose mark is kept under the wrong key, or that reports the last token
// it saw), the refusal is a hand-over:
// - the body got the fenced error, code execution.lease-lost.fenced (the oracle's own string,
//   written from the ADR), not an internal failure;
// - the step ends execution.lease-lost.fenced, and so does its pass's classification (for a
//   withdrawal's body in the step's frame, record sink "...-withdrawal": the withdrawal's own end,
//   which the runtime decides apart from the pass);
// - the holder is stopped: that instance sends no further write, checkpoint or confirmation under
//   the token. From the fenced() call when the body called it; when the body built the
//   ExecutionFencedError itself (record sink ending "/own-error", as a client library mapping the
//   system's rejection would), from the runtime's decision about the step (or withdrawal) that
//   threw it: the runtime cannot know of an error it did not make before it decides ("the holder of
//   its token is stopped with it" at every place the runtime decides), while sibling branches may
//   send under the token until then.
#include "properties/invariants_builtin.h"

namespace fencesim::properties {

class RefusalHandsOver final : public Invariant {
 public:
  std::string_view name() const override { return "refusal-hands-over"; }
  std::string_view statement() const override {
    return "a step body that calls fenced(observed) with what an external system reported (a "
           "later, equal or older token) gets execution.lease-lost.fenced; its step and its pass "
           "end execution.lease-lost.fenced, and its holder sends nothing more under that token; "
           "once any refusal reached a holder's body, its fence says "
           "execution.lease-lost.fenced";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

void check_refusal_hands_over(const Events& events, std::vector<Violation>& out);
// Part of the above: what each withdrawal that handed a refusal over gave back to its client (the
// world's withdrawal-began and withdrawal-returned records): the refusal itself.
void check_withdrawal_returns(const Events& events, std::vector<Violation>& out);
// Part of the above (properties/invariants_stopped_with_refusal.cpp): once a body of a holder was
// handed a refusal (its fenced() call, or a write or confirm that threw ExecutionFencedError),
// every later read of that holder's fence says lost execution.lease-lost.fenced.
void check_stopped_with_refusal(const Events& events, std::vector<Violation>& out);

}  // namespace fencesim::properties
