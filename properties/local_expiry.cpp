#include "properties/local_expiry.h"

#include <algorithm>

namespace fencesim::properties {

void LocalExpiries::add(const sim::HistoryEvent& e) {
  if (e.world != sim::WorldEventKind::kStoreCall || !e.store) return;
  const sim::StoreCall& call = *e.store;
  if (call.op == sim::StoreOp::kTake && call.outcome == "taken" && call.lease) {
    grants_[{call.key, call.lease->token}].push_back(
        {call.sent_monotonic_ns, call.ttl_ns, call.from, e.index});
  } else if (call.op == sim::StoreOp::kRenew && call.outcome == "renewed") {
    grants_[{call.key, call.token}].push_back(
        {call.sent_monotonic_ns, call.ttl_ns, call.from, e.index});
  }
}

std::optional<LocalExpiries::Expiry> LocalExpiries::expiry(const runtime::LeaseKey& key,
                                                           runtime::Token token,
                                                           sim::NodeId node) const {
  auto it = grants_.find({key, token});
  if (it == grants_.end()) return std::nullopt;
  std::vector<Grant> mine;
  for (const Grant& g : it->second) {
    if (g.from == node) mine.push_back(g);
  }
  if (mine.empty()) return std::nullopt;
  std::stable_sort(mine.begin(), mine.end(), [](const Grant& a, const Grant& b) {
    return a.sent_monotonic_ns < b.sent_monotonic_ns;
  });
  // The first grant is the take; each renewal sent while the lease was still held extends it.
  Expiry out{mine.front().sent_monotonic_ns + mine.front().ttl_ns - margin(mine.front().ttl_ns),
             mine.front().index};
  for (const Grant& g : mine) {
    if (g.sent_monotonic_ns >= out.monotonic_ns) break;
    const runtime::Nanoseconds until = g.sent_monotonic_ns + g.ttl_ns - margin(g.ttl_ns);
    if (until > out.monotonic_ns) out = {until, g.index};
  }
  return out;
}

}  // namespace fencesim::properties
