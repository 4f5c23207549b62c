// Strict confirm (ADR-0023, Decision: confirmNow() is a strict renewal): every confirm that returned
// to its step body (the workload's own kObserved record, made by scenarios::confirm_now) was
// answered by a renewal of its lease key and token that the lease store granted (the store's
// kStoreCall record), sent from the body's node after the confirm began. An old, conservative
// confirmedUntil is no answer: without a granted renewal, a confirm must throw.
#include <fmt/format.h>

#include <map>

#include "properties/history_support.h"
#include "properties/invariants_builtin.h"

namespace fencesim::properties {

using std::string_view_literals::operator""sv;

namespace {

struct GrantedRenewal {
  std::int64_t sent_ns = 0;
  sim::NodeId from = sim::kWorldNode;
};

}  // namespace

void check_strict_confirm(const Events& events, std::vector<Violation>& out) {
  std::map<std::pair<sim::NameKey, runtime::Token>, std::vector<GrantedRenewal>> granted;
  for (const sim::HistoryEvent& e : events) {
    if (e.world == sim::WorldEventKind::kStoreCall && e.store) {
      const sim::StoreCall& call = *e.store;
      if (call.op == sim::StoreOp::kRenew && call.outcome == "renewed"sv) {
        granted[{call.key, call.token}].push_back({call.sent_ns, call.from});
      }
      continue;
    }
    if (e.world != sim::WorldEventKind::kObserved || e.runtime.holder != "confirm" ||
        e.detail != "confirmed") {
      continue;
    }
    const sim::RuntimeRecord& r = e.runtime;
    const std::int64_t began_ns = r.value;
    bool answered = false;
    if (auto it = granted.find({r.key, r.token}); it != granted.end()) {
      // Grants are in the store's order, not their send order: the network reorders, so an older
      // renewal (the timer's, sent before the confirm began) may be granted after the confirm's.
      // Every grant of the token is looked at; there are a few per lease-length.
      for (auto g = it->second.rbegin(); g != it->second.rend(); ++g) {
        if (g->from == e.node && g->sent_ns >= began_ns && g->sent_ns <= e.time_ns) {
          answered = true;
          break;
        }
      }
    }
    if (answered) continue;
    out.push_back(violation(
        StrictConfirm{}.name(),
        fmt::format("confirmNow() returned to step '{}' of {} under token {} (began at t={}ns) "
                    "though the lease store granted no renewal of that token sent since",
                    r.step, runtime::to_string(r.key), r.token, began_ns),
        {e.index}));
  }
}

void StrictConfirm::check(const sim::World& world, std::vector<Violation>& out) const {
  check_strict_confirm(world.history().events(), out);
}

}  // namespace fencesim::properties
