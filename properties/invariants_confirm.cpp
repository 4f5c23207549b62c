// Strict confirm: confirmNow() is a strict renewal (ADR-0023, Decision), so when it returns the
// store holds the step's lease at its token. No runtime event says that a call returned; the
// workload that called it checks the store's truth right then and records a mark when the store
// had already moved on (scenarios/unchecked_system.cpp).
#include "properties/history_support.h"
#include "properties/invariants_builtin.h"

namespace fencesim::properties {

void check_strict_confirm(const Events& events, std::vector<Violation>& out) {
  for (const sim::HistoryEvent& e : events) {
    if (e.world != sim::WorldEventKind::kMark || e.detail != "confirm-returned-without-lease") {
      continue;
    }
    out.push_back(violation(StrictConfirm{}.name(),
                            "confirmNow() returned though the store had granted the lease to a "
                            "later epoch or taken it back",
                            {e.index}));
  }
}

void StrictConfirm::check(const sim::World& world, std::vector<Violation>& out) const {
  check_strict_confirm(world.history().events(), out);
}

}  // namespace fencesim::properties
