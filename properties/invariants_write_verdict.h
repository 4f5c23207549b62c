#pragma once
// A write returns to its step body only what the sink judged: judged from the sink's own record of
// each write it handled (kStoreCall: payload, token, outcome) and from what the workload's body saw
// (kObserved, made by scenarios::write_effect), matched by the payload the workload intended
// (kIntent), never by the runtime's events or its idempotency key.
#include "properties/invariants_builtin.h"

namespace fencesim::properties {

class WriteVerdict final : public Invariant {
 public:
  std::string_view name() const override { return "write-verdict"; }
  std::string_view statement() const override {
    return "a write that returns to its step body returns what the sink judged: applied or "
           "deduplicated, and the sink applied or deduplicated that payload under that token "
           "while the call was in flight; a refusal never returns as a reply";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

void check_write_verdict(const Events& events, std::vector<Violation>& out);

}  // namespace fencesim::properties
