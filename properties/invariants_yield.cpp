// Safe yield: a holder gives a tree's lease back (a remote-children wait's yield, or the end of a
// pass) only while no step of that tree runs at it, and no step starts under a released token.
#include <fmt/format.h>

#include <set>

#include "properties/history_support.h"
#include "properties/invariants_builtin.h"

namespace fencesim::properties {

using runtime::EventKind;

namespace {

using TreeAtHolder = std::pair<std::string, runtime::LeaseKey>;

struct TreeState {
  int waits_open = 0;                            // remote-children waits begun, not ended
  std::map<std::string, std::uint64_t> running;  // step path -> its kStepStarted
};

void judge_release(const sim::HistoryEvent& e, const TreeState& tree, std::vector<Violation>& out) {
  if (tree.running.empty()) return;
  const runtime::RuntimeEvent& r = e.runtime;
  std::vector<std::uint64_t> events;
  std::string paths;
  for (const auto& [path, started] : tree.running) {
    events.push_back(started);
    paths += (paths.empty() ? "'" : ", '") + path + "'";
  }
  events.push_back(e.index);
  out.push_back(violation(SafeYield{}.name(),
                          fmt::format("{} released {} token {} {} while step {} of the tree ran",
                                      r.holder, runtime::to_string(r.key), r.token,
                                      tree.waits_open > 0 ? "during a remote-children wait"
                                                          : "outside a remote-children wait",
                                      paths),
                          std::move(events)));
}

}  // namespace

void check_safe_yield(const Events& events, std::vector<Violation>& out) {
  std::map<TreeAtHolder, TreeState> trees;
  std::map<HeldToken, std::uint64_t> released;  // -> the kLeaseReleased
  for (const sim::HistoryEvent& e : events) {
    const runtime::RuntimeEvent* r = runtime_event(e);
    if (r == nullptr) continue;
    TreeState& tree = trees[{r->holder, r->key}];
    switch (r->kind) {
      case EventKind::kTreeStarted:
        tree = TreeState{};
        break;
      case EventKind::kRemoteWaitBegan:
        ++tree.waits_open;
        break;
      case EventKind::kRemoteWaitEnded:
        --tree.waits_open;
        break;
      case EventKind::kStepEnded:
        tree.running.erase(r->step);
        break;
      case EventKind::kLeaseReleased:
        judge_release(e, tree, out);
        released.try_emplace(held_token(*r), e.index);
        break;
      case EventKind::kStepStarted:
        tree.running[r->step] = e.index;
        if (auto it = released.find(held_token(*r)); it != released.end()) {
          out.push_back(
              violation(SafeYield{}.name(),
                        fmt::format("{} started step '{}' of {} under token {}, which "
                                    "it had released",
                                    r->holder, r->step, runtime::to_string(r->key), r->token),
                        {it->second, e.index}));
        }
        break;
      default:
        break;
    }
  }
}

void SafeYield::check(const sim::World& world, std::vector<Violation>& out) const {
  check_safe_yield(world.history().events(), out);
}

}  // namespace fencesim::properties
