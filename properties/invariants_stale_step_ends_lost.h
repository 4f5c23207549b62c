#pragma once
// stale-step-ends-lost: judged from the lease store's grants (the oracle's own local expiry,
// properties/local_expiry.h) and the holder's step ends; never from the runtime's belief.
#include <vector>

#include "properties/invariant.h"
#include "properties/invariants_builtin.h"

namespace fencesim::properties {

// ADR-0023: "A step whose lease's own expiry fires before its fenced write settles still ends its
// call with ExecutionLeaseLostError ...; the write is refused either way." A step whose holder
// decides its failure at or after the local expiry the store's grants give its token (the send
// time of the last granted take or renewal + ttl - the drift margin, on its own clock; never
// earlier than the holder's own) is a stale step: it ends execution.lease-lost..., never with the
// body's or a sink's own failure (a write whose sink call failed after the expiry, before anything
// noticed it, included). Successes after the expiry are judged by stale-step-never-succeeds.
class StaleStepEndsLost final : public Invariant {
 public:
  std::string_view name() const override { return "stale-step-ends-lost"; }
  std::string_view statement() const override {
    return "a step that ends at or after the local expiry the store's grants give its token "
           "ends execution.lease-lost..., never ok and never with its body's or a sink's own "
           "failure";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

void check_stale_step_ends_lost(const Events& events, const LocalExpiryPolicy& policy,
                                std::vector<Violation>& out);

}  // namespace fencesim::properties
