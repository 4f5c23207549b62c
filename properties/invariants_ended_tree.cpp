// ended-tree-not-live (properties/invariants_ended_tree.h).
#include "properties/invariants_ended_tree.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <tuple>

#include "properties/history_support.h"
#include "properties/tree_end.h"

namespace fencesim::properties {

namespace {

// The withdrawals open (began, not yet returned) per node, tree and step path: their begin
// indices. Which return is whose cannot be told while they overlap, so a return closes the latest
// one and the earliest stays open (the judgement stays on the side of the runtime).
using WithdrawalSlot = std::tuple<sim::NodeId, sim::NameKey, sim::Name>;

}  // namespace

void check_ended_tree_not_live(const Events& events, std::vector<Violation>& out) {
  TreeEnds ends;
  std::map<WithdrawalSlot, std::multiset<std::uint64_t>> open;
  for (const sim::HistoryEvent& e : events) {
    ends.add(e);
    if (e.world == sim::WorldEventKind::kObserved) {
      const std::string_view what = e.runtime.holder.view();
      const WithdrawalSlot slot{e.node, e.runtime.key, e.runtime.step};
      if (what == "withdrawal-began") {
        open[slot].insert(e.index);
      } else if (what == "withdrawal-returned") {
        auto it = open.find(slot);
        if (it != open.end() && !it->second.empty()) it->second.erase(std::prev(it->second.end()));
      }
      continue;
    }
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr || r->kind != runtime::EventKind::kWithdrawalRefused) continue;
    // The refusal's claim: the tree is live (not a store that could not be read).
    if (r->detail.find("live") == std::string::npos) continue;
    const std::optional<std::uint64_t> end = ends.ended(r->key);
    if (!end) continue;
    const auto it = open.find(WithdrawalSlot{e.node, r->key, r->step});
    if (it == open.end() || it->second.empty()) continue;
    const std::uint64_t began = *it->second.begin();
    if (began < *end) continue;
    out.push_back(violation(
        EndedTreeNotLive{}.name(),
        fmt::format("{}: a withdrawal for step '{}' of {} began after the store recorded the "
                    "tree's end (event #{}) and was refused: '{}'",
                    r->holder, r->step, runtime::to_string(r->key), *end, r->detail),
        {*end, began, e.index}));
  }
}

void EndedTreeNotLive::check(const sim::World& world, std::vector<Violation>& out) const {
  check_ended_tree_not_live(world.history().events(), out);
}

}  // namespace fencesim::properties
