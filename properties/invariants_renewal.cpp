// Conditional renewal, judged twice: at the store, by the store's own wall clock (a renewal's
// event tells its "now": expiry - ttl), so clock drift and steps cannot blur the verdict; and at
// the holder, where a lease once lost never comes back.
#include <fmt/format.h>

#include <map>
#include <unordered_map>

#include "properties/history_support.h"
#include "properties/invariants_builtin.h"

namespace fencesim::properties {

using runtime::EventKind;

namespace {

struct RenewedLease {
  std::string holder;
  runtime::Token token = runtime::kTokenNone;
  runtime::Nanoseconds expires_at_ns = 0;  // the store's wall clock
  bool released = false;
  std::uint64_t last = 0;  // the grant, renewal or release that set this state
};

void judge_store_renewal(const sim::HistoryEvent& e, runtime::Nanoseconds ttl_ns,
                         std::map<sim::NameKey, RenewedLease>& leases,
                         std::vector<Violation>& out) {
  const std::string_view name = ConditionalRenewal{}.name();
  const sim::RuntimeRecord& r = e.runtime;
  auto it = leases.find(r.key);
  if (it == leases.end()) {
    out.push_back(violation(name,
                            fmt::format("the store renewed {} token {}, a lease it never granted",
                                        runtime::to_string(r.key), r.token),
                            {e.index}));
    return;
  }
  RenewedLease& lease = it->second;
  // The store's renewal event names the requester: a renewal accepted for another holder or token
  // than the key's epoch extended a lease that was not the requester's (a stale holder's late
  // renewal keeping the next holder's lease alive).
  if (r.token != lease.token || r.holder != lease.holder) {
    out.push_back(violation(
        name,
        fmt::format("the store renewed {} for {} token {} while epoch {} belongs to {}",
                    runtime::to_string(r.key), r.holder, r.token, lease.token, lease.holder),
        {lease.last, e.index}));
    return;
  }
  const runtime::Nanoseconds store_now_ns = r.value - ttl_ns;
  if (lease.released) {
    out.push_back(violation(name,
                            fmt::format("the store renewed {} token {} after it was released",
                                        runtime::to_string(r.key), r.token),
                            {lease.last, e.index}));
  } else if (store_now_ns >= lease.expires_at_ns) {
    out.push_back(violation(
        name,
        fmt::format("the store renewed {} token {} {} ns (its own clock) after the lease expired",
                    runtime::to_string(r.key), r.token, store_now_ns - lease.expires_at_ns),
        {lease.last, e.index}));
  }
  lease.expires_at_ns = r.value;
  lease.last = e.index;
}

}  // namespace

void check_conditional_renewal(const Events& events, runtime::Nanoseconds ttl_ns,
                               std::vector<Violation>& out) {
  std::map<sim::NameKey, RenewedLease> leases;
  std::unordered_map<HeldToken, std::uint64_t, KeyHash> lost;  // held token -> the holder's kLeaseLost
  for (const sim::HistoryEvent& e : events) {
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) continue;
    switch (r->kind) {
      case EventKind::kStoreLeaseGranted:
        leases[r->key] = RenewedLease{r->holder, r->token, r->value, false, e.index};
        break;
      case EventKind::kStoreLeaseReleased:
        if (auto it = leases.find(r->key); it != leases.end() && it->second.token == r->token) {
          it->second = RenewedLease{r->holder, r->token, r->value, true, e.index};
        }
        break;
      case EventKind::kStoreLeaseRenewed:
        judge_store_renewal(e, ttl_ns, leases, out);
        break;
      case EventKind::kLeaseLost:
        lost.try_emplace(held_token(*r), e.index);
        break;
      case EventKind::kLeaseRenewed:
        if (auto it = lost.find(held_token(*r)); it != lost.end()) {
          out.push_back(violation(
              ConditionalRenewal{}.name(),
              fmt::format("{} believed a renewal of {} token {} after it had lost that lease",
                          r->holder, runtime::to_string(r->key), r->token),
              {it->second, e.index}));
        }
        break;
      default:
        break;
    }
  }
}

void ConditionalRenewal::check(const sim::World& world, std::vector<Violation>& out) const {
  check_conditional_renewal(world.history().events(), world.options().lease.ttl_ns, out);
}

}  // namespace fencesim::properties
