// A write whose lease expired locally before its reply never returns success to its step body, and
// a confirmNow() whose lease expired locally before it returned never returns to its body either
// (a confirm promises the lease is held now: returning on an expired belief lets the body make its
// unchecked call for a stale holder; red team round 8, bug 09).
// Local expiry is computed by the oracle from the lease store's grants (properties/local_expiry.h),
// never read from the runtime's beliefs. What the body saw is the workload's own kObserved record
// (made by scenarios::write_effect when the write returned), stamped with the holder's monotonic
// clock.
#include <fmt/format.h>

#include "properties/history_support.h"
#include "properties/invariants_builtin.h"
#include "properties/local_expiry.h"

namespace fencesim::properties {

void check_expired_write_never_succeeds(const Events& events, const LocalExpiryPolicy& policy,
                                        std::vector<Violation>& out) {
  LocalExpiries expiries(policy);
  for (const sim::HistoryEvent& e : events) {
    expiries.add(e);
    if (e.world != sim::WorldEventKind::kObserved) continue;
    const bool write_succeeded =
        e.runtime.holder == "write" && (e.detail == "applied" || e.detail == "deduplicated");
    const bool confirm_returned = e.runtime.holder == "confirm" && e.detail == "confirmed";
    if (!write_succeeded && !confirm_returned) continue;
    const char* what = write_succeeded ? "a write" : "confirmNow()";
    const sim::RuntimeRecord& r = e.runtime;
    const std::optional<LocalExpiries::Expiry> expiry = expiries.expiry(r.key, r.token, e.node);
    if (!expiry) {
      out.push_back(violation(
          ExpiredWriteNeverSucceeds{}.name(),
          fmt::format("a write of step '{}' of {} returned '{}' under token {}, which the lease "
                      "store never granted to this node",
                      r.step, runtime::to_string(r.key), e.detail, r.token),
          {e.index}));
      continue;
    }
    if (e.local_monotonic_ns <= expiry->monotonic_ns) continue;
    out.push_back(
        violation(ExpiredWriteNeverSucceeds{}.name(),
                  fmt::format("{} of step '{}' of {} under token {} returned '{}' to its body at "
                              "monotonic {}ns, after its lease expired locally at {}ns",
                              what, r.step, runtime::to_string(r.key), r.token, e.detail,
                              e.local_monotonic_ns, expiry->monotonic_ns),
                  {expiry->grant_index, e.index}));
  }
}

void ExpiredWriteNeverSucceeds::check(const sim::World& world, std::vector<Violation>& out) const {
  const sim::LeaseTerms& lease = world.options().lease;
  check_expired_write_never_succeeds(world.history().events(), expiry_policy_of(lease), out);
}

}  // namespace fencesim::properties
