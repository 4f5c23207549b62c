#include "properties/local_expiry.h"

#include <algorithm>

namespace fencesim::properties {

using std::string_view_literals::operator""sv;

void LocalExpiries::add(const sim::HistoryEvent& e) {
  if (e.world != sim::WorldEventKind::kStoreCall || !e.store) return;
  const sim::StoreCall& call = *e.store;
  runtime::Token token = 0;
  if (call.op == sim::StoreOp::kTake && call.outcome == "taken"sv && call.lease) {
    token = call.lease->token;
  } else if (call.op == sim::StoreOp::kRenew && call.outcome == "renewed"sv) {
    token = call.token;
  } else {
    return;
  }
  // Kept in send order (the network may deliver a later renewal first), ties in history order,
  // so that expiry(), asked at every act an oracle judges, walks them without sorting a copy.
  std::vector<Grant>& grants = grants_[{call.key, token}];
  const Grant grant{call.sent_monotonic_ns, call.ttl_ns, call.from, e.index};
  grants.insert(std::upper_bound(grants.begin(), grants.end(), grant,
                                 [](const Grant& a, const Grant& b) {
                                   return a.sent_monotonic_ns < b.sent_monotonic_ns;
                                 }),
                grant);
}

std::optional<LocalExpiries::Expiry> LocalExpiries::expiry(const sim::NameKey& key,
                                                           runtime::Token token,
                                                           sim::NodeId node) const {
  auto it = grants_.find({key, token});
  if (it == grants_.end()) return std::nullopt;
  // The first grant (in send order) is the take; each renewal sent while the lease was still held
  // extends it.
  std::optional<Expiry> out;
  for (const Grant& g : it->second) {
    if (g.from != node) continue;
    const runtime::Nanoseconds until = g.sent_monotonic_ns + g.ttl_ns - margin(g.ttl_ns);
    if (!out) {
      out = Expiry{until, g.index};
      continue;
    }
    if (g.sent_monotonic_ns >= out->monotonic_ns) break;
    if (until > out->monotonic_ns) *out = {until, g.index};
  }
  return out;
}

}  // namespace fencesim::properties
