// returned-withdrawal-not-lost (properties/invariants_withdrawal_return.h).
#include "properties/invariants_withdrawal_return.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "properties/history_support.h"

namespace fencesim::properties {

using runtime::EventKind;

namespace {

// A withdrawal body's own record that it returned (scenarios::record_withdrawal_body_returned).
bool is_body_return(const sim::HistoryEvent& e) {
  return e.world == sim::WorldEventKind::kObserved &&
         e.runtime.holder == "withdrawal-body-returned"sv;
}

}  // namespace

void check_returned_withdrawal_not_lost(const std::vector<sim::HistoryEvent>& events,
                                        std::vector<Violation>& out) {
  // Most runs hold no body's record of its return (only scenarios whose withdrawals make one):
  // nothing to judge, and the beliefs of every token are not worth keeping then.
  if (std::none_of(events.begin(), events.end(), is_body_return)) return;
  const std::string_view name = ReturnedWithdrawalNotLost{}.name();
  std::map<NodeToken, std::int64_t> belief;       // confirmedUntil of its last grant or renewal
  std::set<NodeToken> ended;                      // lost, or refused, as its holder knew
  std::map<NodeToken, std::uint64_t> given_back;  // released while alive: the release's index
  std::map<sim::NodeId, std::uint64_t> returned;  // a body's return not yet followed by its end
  for (const sim::HistoryEvent& e : events) {
    if (is_body_return(e)) {
      returned[e.node] = e.index;
      continue;
    }
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) continue;
    if (r->kind == EventKind::kLeaseTaken || r->kind == EventKind::kLeaseRenewed) {
      belief[node_token(e)] = r->value;
      continue;
    }
    if (is_known_loss(*r)) {
      ended.insert(node_token(e));
      continue;
    }
    if (r->kind == EventKind::kLeaseReleased) {
      const NodeToken held = node_token(e);
      auto believed = belief.find(held);
      if (!ended.contains(held) && believed != belief.end() &&
          e.local_monotonic_ns < believed->second) {
        given_back.emplace(held, e.index);
      }
      continue;
    }
    if (r->kind != EventKind::kWithdrawalEnded) continue;
    auto body = returned.find(e.node);
    if (body == returned.end()) continue;  // its body threw (or records nothing)
    const std::uint64_t returned_at = body->second;
    returned.erase(body);
    if (r->token == runtime::kTokenNone || r->detail == "ok"sv) continue;
    auto release = given_back.find(node_token(e));
    if (release == given_back.end() || release->second > returned_at) continue;
    out.push_back(violation(
        name,
        fmt::format("{}: the withdrawal for step '{}' of {} under token {} ended with '{}', but "
                    "its body returned (event #{}) after its holder gave the lease back (event "
                    "#{}) with nothing having lost it: a lease given back is not lost, and the "
                    "withdrawal succeeded",
                    r->holder, r->step, runtime::to_string(r->key), r->token,
                    std::string_view(r->detail), returned_at, release->second),
        {release->second, returned_at, e.index}));
  }
}

void ReturnedWithdrawalNotLost::check(const sim::World& world, std::vector<Violation>& out) const {
  check_returned_withdrawal_not_lost(world.history().events(), out);
}

}  // namespace fencesim::properties
