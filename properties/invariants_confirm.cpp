// Strict confirm (ADR-0023, Decision: confirmNow() is a strict renewal): every confirm that returned
// to its step body (the workload's own kObserved record, made by scenarios::confirm_now) was
// answered by a renewal of its lease key and token that the lease store granted (the store's
// kStoreCall record), sent from the body's node after the confirm began. An old, conservative
// confirmedUntil is no answer: without a granted renewal, a confirm must throw.
#include <fmt/format.h>

#include "properties/history_support.h"
#include "properties/invariants_builtin.h"
#include "properties/renewal_grants.h"

namespace fencesim::properties {

void check_strict_confirm(const Events& events, std::vector<Violation>& out) {
  RenewalGrants granted;
  for (const sim::HistoryEvent& e : events) {
    if (e.world == sim::WorldEventKind::kStoreCall) {
      granted.add(e);
      continue;
    }
    if (e.world != sim::WorldEventKind::kObserved || e.runtime.holder != "confirm" ||
        e.detail != "confirmed") {
      continue;
    }
    const sim::RuntimeRecord& r = e.runtime;
    const std::int64_t began_ns = r.value;
    if (granted.first_answer(r.key, r.token, e.node, began_ns, e.time_ns) != nullptr) continue;
    out.push_back(violation(
        StrictConfirm{}.name(),
        fmt::format("confirmNow() returned to step '{}' of {} under token {} (began at t={}ns) "
                    "though the lease store granted no renewal of that token sent since",
                    r.step, runtime::to_string(r.key), r.token, began_ns),
        {e.index}));
  }
}

void StrictConfirm::check(const sim::World& world, std::vector<Violation>& out) const {
  check_strict_confirm(world.history().events(), out);
}

}  // namespace fencesim::properties
