// stale-step-ends-lost (properties/invariants_stale_step_ends_lost.h).
#include "properties/invariants_stale_step_ends_lost.h"

#include <fmt/format.h>

#include "properties/history_support.h"
#include "properties/local_expiry.h"
#include "runtime/errors.h"

namespace fencesim::properties {

using runtime::EventKind;

void check_stale_step_ends_lost(const Events& events, const LocalExpiryPolicy& policy,
                                std::vector<Violation>& out) {
  const std::string lost(runtime::ExecutionLeaseLostError::kCode);
  LocalExpiries expiries(policy);
  for (const sim::HistoryEvent& e : events) {
    expiries.add(e);
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr || r->kind != EventKind::kStepEnded) continue;
    const std::string_view code = r->detail;
    if (code == lost || code.starts_with(lost + ".")) continue;
    if (r->token == runtime::kTokenNone) continue;
    const std::optional<LocalExpiries::Expiry> expiry = expiries.expiry(r->key, r->token, e.node);
    if (!expiry || e.local_monotonic_ns < expiry->monotonic_ns) continue;
    // An ok too: its checkpoint may stand (the store took it while the lease was live there), but
    // the step's outcome settled after its lease ran out, and it does not report success
    // (ADR-0023, Consequences), as a fenced write that settles after the expiry does not.
    const std::string ended = code == "ok" ? std::string("ok") : fmt::format("'{}'", code);
    out.push_back(violation(
        StaleStepEndsLost{}.name(),
        fmt::format("{}: step '{}' of {} under token {} ended {} at monotonic {}ns, at or after "
                    "the local expiry {}ns that the store's grants give it: expected "
                    "execution.lease-lost...",
                    r->holder, r->step, runtime::to_string(r->key), r->token, ended,
                    e.local_monotonic_ns, expiry->monotonic_ns),
        {expiry->grant_index, e.index}));
  }
}

void StaleStepEndsLost::check(const sim::World& world, std::vector<Violation>& out) const {
  const sim::LeaseTerms& lease = world.options().lease;
  check_stale_step_ends_lost(world.history().events(), expiry_policy_of(lease), out);
}

}  // namespace fencesim::properties
