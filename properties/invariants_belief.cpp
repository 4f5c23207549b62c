// Conservative belief: what a holder believes of its lease, taken to true time through its own
// clock, never outlasts what the store holds, taken to true time through the store's clock. Both
// conversions are exact: each event carries its node's monotonic reading, and the rates come from
// the drift faults the history shows applied. Runs outside the assumptions are not judged here.
#include <fmt/format.h>

#include <algorithm>

#include "properties/history_support.h"
#include "properties/invariants_builtin.h"
#include "sim/fault.h"

namespace fencesim::properties {

using runtime::EventKind;

namespace {

__extension__ typedef __int128 Wide;
constexpr Wide kMillion = 1'000'000;

// Clock arithmetic floors or rounds up to a nanosecond at each end of a conversion.
constexpr std::int64_t kRoundingNs = 4;

}  // namespace

RunFacts run_facts(const sim::World& world) {
  RunFacts facts;
  facts.ttl_ns = world.options().lease.ttl_ns;
  const sim::FaultPlan& plan = world.fault_plan();
  facts.within_assumptions = world.within_assumptions();
  for (const sim::HistoryEvent& e : world.history().events()) {
    if (e.world != sim::WorldEventKind::kFaultApplied) continue;
    for (const sim::Fault& fault : plan.faults) {
      if (fault.kind == sim::FaultKind::kClockDrift && fault.node == world.node_names()[e.node] &&
          sim::describe(fault) == e.detail) {
        facts.drift[e.node].push_back(DriftChange{e.time_ns, fault.amount});
        break;
      }
    }
  }
  return facts;
}

std::int64_t true_time_when(const RunFacts& facts, sim::NodeId node, std::int64_t time_ns,
                            runtime::Nanoseconds monotonic_ns,
                            runtime::Nanoseconds target_monotonic_ns) {
  static const std::vector<DriftChange> kNone;
  auto found = facts.drift.find(node);
  const std::vector<DriftChange>& changes = found == facts.drift.end() ? kNone : found->second;
  auto next =
      std::upper_bound(changes.begin(), changes.end(), time_ns,
                       [](std::int64_t t, const DriftChange& change) { return t < change.at_ns; });
  Wide rate = kMillion + (next == changes.begin() ? 0 : std::prev(next)->drift_ppm);
  Wide t = time_ns;
  Wide m = monotonic_ns;
  const Wide target = target_monotonic_ns;
  if (target <= m) return static_cast<std::int64_t>(t - (m - target) * kMillion / rate);
  for (;; ++next) {
    if (next != changes.end()) {
      const Wide m_at_change = m + (next->at_ns - t) * rate / kMillion;
      if (m_at_change < target) {
        t = next->at_ns;
        m = m_at_change;
        rate = kMillion + next->drift_ppm;
        continue;
      }
    }
    return static_cast<std::int64_t>(t + ((target - m) * kMillion + rate - 1) / rate);
  }
}

namespace {

std::string_view belief_name() {
  return ConservativeBelief{}.name();
}

// `e` is the holder's kLeaseTaken or kLeaseRenewed; `s` the store's latest grant or renewal of
// the same key and token before it.
void judge_belief(const sim::HistoryEvent& e, const sim::HistoryEvent& s, const RunFacts& facts,
                  std::vector<Violation>& out) {
  const sim::RuntimeRecord& r = e.runtime;
  if (s.runtime.holder != r.holder) {
    out.push_back(
        violation(belief_name(),
                  fmt::format("{} believes {} token {}, which the store holds for {}", r.holder,
                              runtime::to_string(r.key), r.token, s.runtime.holder),
                  {s.index, e.index}));
    return;
  }
  if (r.kind == EventKind::kLeaseRenewed && s.runtime.kind != EventKind::kStoreLeaseRenewed) {
    out.push_back(violation(belief_name(),
                            fmt::format("{} believes a renewal of {} token {} that the store "
                                        "never made",
                                        r.holder, runtime::to_string(r.key), r.token),
                            {s.index, e.index}));
    return;
  }
  if (!facts.within_assumptions) return;
  const std::int64_t believed_ns =
      true_time_when(facts, e.node, e.time_ns, e.local_monotonic_ns, r.value);
  // The store's wall clock read expiry - ttl at its event and ends the lease ttl later on it.
  const std::int64_t store_end_ns = true_time_when(facts, s.node, s.time_ns, s.local_monotonic_ns,
                                                   s.local_monotonic_ns + facts.ttl_ns);
  if (believed_ns <= store_end_ns + kRoundingNs) return;
  out.push_back(violation(
      belief_name(),
      fmt::format("{} believes {} token {} until true time {} ns, {} ns after the store's lease "
                  "ends at {} ns",
                  r.holder, runtime::to_string(r.key), r.token, believed_ns,
                  believed_ns - store_end_ns, store_end_ns),
      {s.index, e.index}));
}

}  // namespace

void check_conservative_belief(const Events& events, const RunFacts& facts,
                               std::vector<Violation>& out) {
  // (key, token) -> position in `events` of the store's latest grant or renewal.
  std::map<std::pair<sim::NameKey, runtime::Token>, std::size_t> latest;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const sim::HistoryEvent& e = events[i];
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) continue;
    if (r->kind == EventKind::kStoreLeaseGranted || r->kind == EventKind::kStoreLeaseRenewed) {
      latest[{r->key, r->token}] = i;
      continue;
    }
    if (r->kind != EventKind::kLeaseTaken && r->kind != EventKind::kLeaseRenewed) continue;
    auto it = latest.find({r->key, r->token});
    if (it == latest.end()) {
      out.push_back(violation(belief_name(),
                              fmt::format("{} believes {} token {}, which the store never granted",
                                          r->holder, runtime::to_string(r->key), r->token),
                              {e.index}));
      continue;
    }
    judge_belief(e, events[it->second], facts, out);
  }
}

void ConservativeBelief::check(const sim::World& world, std::vector<Violation>& out) const {
  check_conservative_belief(world.history().events(), run_facts(world), out);
}

}  // namespace fencesim::properties
