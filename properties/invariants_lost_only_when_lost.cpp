// lost-only-when-lost (properties/invariants_lost_only_when_lost.h).
#include "properties/invariants_lost_only_when_lost.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "properties/history_support.h"
#include "runtime/errors.h"

namespace fencesim::properties {

using runtime::EventKind;

namespace {

// Clock arithmetic floors or rounds up to a nanosecond at each end of a conversion.
constexpr std::int64_t kLossRoundingNs = 4;

// The lease store's current lease of one key: its latest grant, and its latest renewal.
struct StoreLease {
  sim::Name holder;
  runtime::Token token = runtime::kTokenNone;
  std::size_t latest = 0;  // position in `events` of the grant or renewal that set its expiry
  bool released = false;
};

// A refusal of the record's token that reached its holder: the store's word that t is over.
bool is_refusal(const sim::RuntimeRecord& r) {
  switch (r.kind) {
    case EventKind::kRenewRefused:
    case EventKind::kWriteRefused:
      return true;
    case EventKind::kCheckpointRefused:
      return r.detail != "cancelled";
    case EventKind::kLeaseLost:
      return r.detail == "fenced";  // a downstream's refusal handed over with fence.fenced()
    default:
      return false;
  }
}

std::string_view what_ended(EventKind kind) {
  switch (kind) {
    case EventKind::kStepEnded:
      return "its step ended";
    case EventKind::kErrorClassified:
      return "its pass was classified";
    default:
      return "its fenced withdrawal ended";
  }
}

}  // namespace

void check_lost_only_when_lost(const Events& events, const RunFacts& facts,
                               std::vector<Violation>& out) {
  if (!facts.within_assumptions) return;
  // Only looked up (KeyHash).
  std::unordered_map<sim::NameKey, StoreLease, KeyHash> store;
  std::unordered_map<HeldToken, runtime::Nanoseconds, KeyHash> belief;  // confirmedUntil of the last grant received
  std::unordered_set<HeldToken, KeyHash> refused;
  std::unordered_set<HeldToken, KeyHash> released;  // by its holder
  for (std::size_t i = 0; i < events.size(); ++i) {
    const sim::HistoryEvent& e = events[i];
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) continue;
    switch (r->kind) {
      case EventKind::kStoreLeaseGranted:
        store[r->key] = StoreLease{r->holder, r->token, i, false};
        continue;
      case EventKind::kStoreLeaseRenewed: {
        StoreLease& lease = store[r->key];
        if (lease.token == r->token && lease.holder == r->holder) lease.latest = i;
        continue;
      }
      case EventKind::kStoreLeaseReleased: {
        StoreLease& lease = store[r->key];
        if (lease.token == r->token) lease.released = true;
        continue;
      }
      case EventKind::kLeaseTaken:
      case EventKind::kLeaseRenewed:
        belief[held_token(*r)] = r->value;
        continue;
      default:
        break;
    }
    if (is_refusal(*r)) {
      refused.insert(held_token(*r));
      continue;
    }
    if (r->kind == EventKind::kLeaseReleased) {
      // It gave the lease back itself (a yield, its pass's end): whatever its release did at the
      // store, the token is no longer its to use, which the other oracles judge.
      released.insert(held_token(*r));
      continue;
    }
    const bool decided = r->kind == EventKind::kStepEnded ||
                         r->kind == EventKind::kErrorClassified ||
                         (r->kind == EventKind::kWithdrawalEnded && r->token != runtime::kTokenNone);
    if (!decided || r->detail != runtime::ExecutionLeaseLostError::kCode) continue;
    const HeldToken held = held_token(*r);
    auto at_store = store.find(r->key);
    if (at_store == store.end()) continue;
    const StoreLease& lease = at_store->second;
    if (lease.token != r->token || lease.holder != r->holder || lease.released) continue;
    if (refused.contains(held) || released.contains(held)) continue;
    auto believed = belief.find(held);
    if (believed == belief.end() || e.local_monotonic_ns >= believed->second) continue;
    const sim::HistoryEvent& s = events[lease.latest];
    const std::int64_t store_end_ns = true_time_when(facts, s.node, s.time_ns,
                                                     s.local_monotonic_ns,
                                                     s.local_monotonic_ns + facts.ttl_ns);
    if (e.time_ns + kLossRoundingNs >= store_end_ns) continue;
    out.push_back(violation(
        LostOnlyWhenLost{}.name(),
        fmt::format("{}: {} (step '{}') with '{}' under token {} of {} at true time {} ns, while "
                    "the store held that token for it until {} ns, no other holder took it, no "
                    "refusal of it had reached it and its belief ran until monotonic {} ns "
                    "(now {} ns)",
                    r->holder, what_ended(r->kind), r->step, std::string_view(r->detail),
                    r->token, runtime::to_string(r->key), e.time_ns, store_end_ns,
                    believed->second, e.local_monotonic_ns),
        {s.index, e.index}));
  }
}

void LostOnlyWhenLost::check(const sim::World& world, std::vector<Violation>& out) const {
  check_lost_only_when_lost(world.history().events(), run_facts(world), out);
}

}  // namespace fencesim::properties
