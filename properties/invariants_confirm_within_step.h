#pragma once
// confirm-within-step: a confirmNow() returns success only while its step runs. Judged from the
// workload's own record of what the confirm returned (kObserved "confirm") against the step's run
// at the same node, lease and token: from its kStepStarted to the moment its body returned (the
// holder's kCheckpointSent for the step, sent right after the body returns, or its kStepEnded).
#include <vector>

#include "properties/invariant.h"
#include "properties/invariants_builtin.h"

namespace fencesim::properties {

// ADR-0023, Decision: the fence "is a fact of its frame, read live (a fence kept past its step
// refuses)", and confirmNow() is "a strict renewal before a call that cannot check tokens". A
// confirm made from a withdrawal or a fiber the step spawned may outlive the step across its round
// trips (the cancel reads and the renewal); the pass's lease is still held for the next step, so
// a confirm that returned then would send an unchecked call in the name of a step that has ended
// (issue 29 item 3). No confirm returns "confirmed" at a node for a lease, token and step path
// whose step run had started there and whose body had returned, with no newer run of it started.
class ConfirmWithinStep final : public Invariant {
 public:
  std::string_view name() const override { return "confirm-within-step"; }
  std::string_view statement() const override {
    return "a confirmNow() returns success only while its step runs: never after the body of its "
           "step's run (same node, lease, token and step path) returned";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

void check_confirm_within_step(const Events& events, std::vector<Violation>& out);

}  // namespace fencesim::properties
