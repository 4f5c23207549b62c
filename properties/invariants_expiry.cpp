// A write whose lease expired locally before its reply never returns success to its step body.
// Local expiry is computed by the oracle, never read from the runtime's beliefs: from the takes and
// renewals of the write's lease key and token that the lease store granted (its kStoreCall
// records), each giving confirmedUntil = its send time on the holder's monotonic clock + ttl - the
// drift margin of the lease policy; a renewal counts only if it was sent before the lease had
// already expired locally. What the body saw is the workload's own kObserved record (made by
// scenarios::write_effect when the write returned), stamped with the holder's monotonic clock.
//
// Renewals granted whose replies were lost still count here: the oracle's expiry is then later
// than the holder's, which can only hide a violation, never invent one.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "properties/history_support.h"
#include "properties/invariants_builtin.h"

namespace fencesim::properties {

namespace {

struct Grant {
  runtime::Nanoseconds sent_monotonic_ns = 0;
  runtime::Nanoseconds ttl_ns = 0;
  sim::NodeId from = sim::kWorldNode;
  std::uint64_t index = 0;
};

}  // namespace

void check_expired_write_never_succeeds(const Events& events, const LocalExpiryPolicy& policy,
                                        std::vector<Violation>& out) {
  auto margin = [&policy](runtime::Nanoseconds ttl_ns) {
    return ttl_ns / 1'000'000 * 2 * policy.drift_bound_ppm + policy.drift_margin_min_ns;
  };
  std::map<std::pair<runtime::LeaseKey, runtime::Token>, std::vector<Grant>> grants;
  for (const sim::HistoryEvent& e : events) {
    if (e.world == sim::WorldEventKind::kStoreCall && e.store) {
      const sim::StoreCall& call = *e.store;
      if (call.op == sim::StoreOp::kTake && call.outcome == "taken" && call.lease) {
        grants[{call.key, call.lease->token}].push_back(
            {call.sent_monotonic_ns, call.ttl_ns, call.from, e.index});
      } else if (call.op == sim::StoreOp::kRenew && call.outcome == "renewed") {
        grants[{call.key, call.token}].push_back(
            {call.sent_monotonic_ns, call.ttl_ns, call.from, e.index});
      }
      continue;
    }
    if (e.world != sim::WorldEventKind::kObserved || e.runtime.holder != "write" ||
        (e.detail != "applied" && e.detail != "deduplicated")) {
      continue;
    }
    const sim::RuntimeRecord& r = e.runtime;
    std::vector<Grant> mine;
    if (auto it = grants.find({r.key, r.token}); it != grants.end()) {
      for (const Grant& g : it->second) {
        if (g.from == e.node) mine.push_back(g);
      }
    }
    if (mine.empty()) {
      out.push_back(violation(
          ExpiredWriteNeverSucceeds{}.name(),
          fmt::format("a write of step '{}' of {} returned '{}' under token {}, which the lease "
                      "store never granted to this node",
                      r.step, runtime::to_string(r.key), e.detail, r.token),
          {e.index}));
      continue;
    }
    std::sort(mine.begin(), mine.end(), [](const Grant& a, const Grant& b) {
      return a.sent_monotonic_ns < b.sent_monotonic_ns;
    });
    // The first grant is the take; each renewal sent while the lease was still held extends it.
    runtime::Nanoseconds expiry = mine.front().sent_monotonic_ns + mine.front().ttl_ns -
                                  margin(mine.front().ttl_ns);
    std::uint64_t last = mine.front().index;
    for (const Grant& g : mine) {
      if (g.sent_monotonic_ns >= expiry) break;
      const runtime::Nanoseconds until = g.sent_monotonic_ns + g.ttl_ns - margin(g.ttl_ns);
      if (until > expiry) {
        expiry = until;
        last = g.index;
      }
    }
    if (e.local_monotonic_ns <= expiry) continue;
    out.push_back(violation(
        ExpiredWriteNeverSucceeds{}.name(),
        fmt::format("a write of step '{}' of {} under token {} returned '{}' to its body at "
                    "monotonic {}ns, after its lease expired locally at {}ns",
                    r.step, runtime::to_string(r.key), r.token, e.detail, e.local_monotonic_ns,
                    expiry),
        {last, e.index}));
  }
}

void ExpiredWriteNeverSucceeds::check(const sim::World& world, std::vector<Violation>& out) const {
  const runtime::LeasePolicy& lease = world.options().lease;
  check_expired_write_never_succeeds(
      world.history().events(), LocalExpiryPolicy{lease.drift_bound_ppm, lease.drift_margin_min_ns},
      out);
}

}  // namespace fencesim::properties
