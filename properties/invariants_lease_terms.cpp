#include "properties/invariants_lease_terms.h"

#include <fmt/format.h>

#include <set>
#include <utility>

#include "properties/history_support.h"
#include "sim/world.h"

namespace fencesim::properties {

void check_lease_terms(const Events& events, runtime::Nanoseconds ttl_ns,
                       std::vector<Violation>& out) {
  // One violation per holder and ttl asked: a runtime with the wrong term asks it at every take
  // and renewal, and one line says it.
  std::set<std::pair<std::string, runtime::Nanoseconds>> reported;
  for (const sim::HistoryEvent& e : events) {
    if (e.world != sim::WorldEventKind::kStoreCall || !e.store) continue;
    const sim::StoreCall& call = *e.store;
    if (call.op != sim::StoreOp::kTake && call.op != sim::StoreOp::kRenew) continue;
    if (call.ttl_ns == ttl_ns || !reported.emplace(call.holder, call.ttl_ns).second) continue;
    out.push_back(violation(
        LeaseTermsKept{}.name(),
        fmt::format(
            "{} asked the lease store for a {} of {} with a ttl of {} ns; the terms are {} ns",
            call.holder, call.op == sim::StoreOp::kTake ? "take" : "renewal",
            runtime::to_string(call.key), call.ttl_ns, ttl_ns),
        {e.index}));
  }
}

void LeaseTermsKept::check(const sim::World& world, std::vector<Violation>& out) const {
  check_lease_terms(world.history().events(), world.options().lease.ttl_ns, out);
}

}  // namespace fencesim::properties
