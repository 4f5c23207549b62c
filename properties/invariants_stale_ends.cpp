// confirm-cancel-hides-no-loss and stale-withdrawal-ends-lost (properties/invariants_stale_ends.h).
#include "properties/invariants_stale_ends.h"

#include <fmt/format.h>

#include <set>
#include <string>

#include "properties/error_codes.h"
#include "properties/history_support.h"
#include "properties/local_expiry.h"

namespace fencesim::properties {

namespace {

LocalExpiryPolicy policy_of(const sim::World& world) {
  const sim::LeaseTerms& lease = world.options().lease;
  return expiry_policy_of(lease);
}

}  // namespace

void check_confirm_cancel_hides_no_loss(const Events& events, const LocalExpiryPolicy& policy,
                                        std::vector<Violation>& out) {
  LocalExpiries expiries(policy);
  for (const sim::HistoryEvent& e : events) {
    expiries.add(e);
    // The workload's record of a confirm that threw the cancel: "error: execution cancelled: ...".
    if (e.world != sim::WorldEventKind::kObserved || e.runtime.holder != "confirm") continue;
    if (!e.detail.view().starts_with("error: execution cancelled")) continue;
    if (e.runtime.token == runtime::kTokenNone) continue;
    const auto expiry = expiries.expiry(e.runtime.key, e.runtime.token, e.node);
    if (!expiry || e.local_monotonic_ns < expiry->monotonic_ns) continue;
    out.push_back(violation(
        ConfirmCancelHidesNoLoss{}.name(),
        fmt::format("a confirmNow() of step '{}' of {} under token {} threw the cancel ('{}') at "
                    "monotonic {}ns, at or after the local expiry {}ns that the store's grants "
                    "give it: expected execution.lease-lost...",
                    e.runtime.step, runtime::to_string(e.runtime.key), e.runtime.token, e.detail,
                    e.local_monotonic_ns, expiry->monotonic_ns),
        {expiry->grant_index, e.index}));
  }
}

void check_stale_withdrawal_ends_lost(const Events& events, const LocalExpiryPolicy& policy,
                                      std::vector<Violation>& out) {
  LocalExpiries expiries(policy);
  std::set<HeldToken> given_back;  // the holder gave the lease back (a pass's end, a yield)
  for (const sim::HistoryEvent& e : events) {
    expiries.add(e);
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r != nullptr && r->kind == runtime::EventKind::kLeaseReleased) {
      given_back.insert(held_token(*r));
      continue;
    }
    if (r == nullptr || r->kind != runtime::EventKind::kWithdrawalEnded) continue;
    if (r->token == runtime::kTokenNone || codes::is_lease_loss(r->detail.view())) continue;
    // A lease given back is not lost: the withdrawal's fence refuses from then on, and what its
    // body did before is judged by the oracles of its writes.
    if (given_back.contains(held_token(*r))) continue;
    const auto expiry = expiries.expiry(r->key, r->token, e.node);
    if (!expiry || e.local_monotonic_ns < expiry->monotonic_ns) continue;
    out.push_back(violation(
        StaleWithdrawalEndsLost{}.name(),
        fmt::format("{}: a withdrawal in step '{}' of {} under token {} ended '{}' at monotonic "
                    "{}ns, at or after the local expiry {}ns that the store's grants give it: "
                    "expected execution.lease-lost...",
                    r->holder, r->step, runtime::to_string(r->key), r->token, r->detail,
                    e.local_monotonic_ns, expiry->monotonic_ns),
        {expiry->grant_index, e.index}));
  }
}

void ConfirmCancelHidesNoLoss::check(const sim::World& world, std::vector<Violation>& out) const {
  check_confirm_cancel_hides_no_loss(world.history().events(), policy_of(world), out);
}

void StaleWithdrawalEndsLost::check(const sim::World& world, std::vector<Violation>& out) const {
  check_stale_withdrawal_ends_lost(world.history().events(), policy_of(world), out);
}

}  // namespace fencesim::properties
