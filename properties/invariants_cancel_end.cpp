// cancel-ends-no-later-step (properties/invariants_cancel_end.h).
#include "properties/invariants_cancel_end.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <tuple>

#include "properties/history_support.h"

namespace fencesim::properties {

using std::string_view_literals::operator""sv;

namespace {

// One step running at a holder: its key, token, holder and path.
using RunningStep = std::tuple<sim::NameKey, runtime::Token, sim::Name, sim::Name>;

}  // namespace

void check_cancel_ends_no_later_step(const Events& events, std::vector<Violation>& out) {
  std::set<sim::NameKey> cancelled;  // the checkpoint store recorded the tree's cancel
  std::set<sim::NameKey> judged;     // one finish per tree is its end
  // The highest token the lease store granted each node for each key.
  std::map<std::pair<sim::NameKey, sim::NodeId>, runtime::Token> granted;
  // Steps started and not yet ended -> the index of their start (the earliest of equal ones).
  std::map<RunningStep, std::multiset<std::uint64_t>> running;
  for (const sim::HistoryEvent& e : events) {
    if (const sim::RuntimeRecord* r = runtime_event(e)) {
      const RunningStep step{r->key, r->token, r->holder, r->step};
      if (r->kind == runtime::EventKind::kStepStarted) {
        running[step].insert(e.index);
      } else if (r->kind == runtime::EventKind::kStepEnded) {
        auto it = running.find(step);
        if (it != running.end() && !it->second.empty()) it->second.erase(it->second.begin());
        if (it != running.end() && it->second.empty()) running.erase(it);
      }
      continue;
    }
    if (e.world != sim::WorldEventKind::kStoreCall || !e.store || e.store->failed) continue;
    const sim::StoreCall& call = *e.store;
    const sim::NameKey& key = call.key;
    if (call.op == sim::StoreOp::kTake && call.outcome == "taken"sv && call.lease) {
      runtime::Token& token = granted[{key, call.from}];
      token = std::max(token, call.lease->token);
    } else if (call.op == sim::StoreOp::kCancel && call.outcome == "recorded"sv) {
      cancelled.insert(key);
    } else if (call.op == sim::StoreOp::kFinish && cancelled.contains(key) &&
               judged.insert(key).second) {
      const auto g = granted.find({key, call.from});
      const runtime::Token finisher = g == granted.end() ? runtime::kTokenNone : g->second;
      for (const auto& [step, starts] : running) {
        const auto& [step_key, token, holder, path] = step;
        if (step_key != key || token <= finisher || starts.empty()) continue;
        out.push_back(violation(
            CancelEndsNoLaterStep{}.name(),
            fmt::format("the placement of cancelled tree {} was finished (its end) from node {}, "
                        "whose latest granted token is {}, while step '{}' of {} ran under the "
                        "later token {}",
                        runtime::to_string(call.key), call.from, finisher, path, holder, token),
            {*starts.begin(), e.index}));
        break;
      }
    }
  }
}

void CancelEndsNoLaterStep::check(const sim::World& world, std::vector<Violation>& out) const {
  check_cancel_ends_no_later_step(world.history().events(), out);
}

}  // namespace fencesim::properties
