// Safe yield: a holder gives a tree's lease back (a remote-children wait's yield, or the end of a
// pass) only while every lane of that tree is idle at it, and no step starts under a released
// token. Busy lanes are counted from the history, not only step bodies: a step running, a
// checkpoint sent and not yet answered; and a lane that was not yet started or between steps shows
// itself by working (starting a step, sending a checkpoint) after the release, before the holder
// took the lease again.
#include <fmt/format.h>

#include <optional>
#include <set>
#include <unordered_map>

#include "properties/history_support.h"
#include "properties/invariants_builtin.h"

namespace fencesim::properties {

using runtime::EventKind;

namespace {

using TreeAtHolder = std::pair<sim::Name, sim::NameKey>;  // names: no bytes copied

struct TreeState {
  int waits_open = 0;                                // remote-children waits begun, not ended
  std::map<sim::Name, std::uint64_t> running;      // step path -> its kStepStarted
  std::map<sim::Name, std::uint64_t> checkpoints;  // path -> its kCheckpointSent, unanswered
  std::optional<std::uint64_t> released;  // the kLeaseReleased, until the next kLeaseTaken
};

void judge_release(const sim::HistoryEvent& e, const TreeState& tree, std::vector<Violation>& out) {
  if (tree.running.empty() && tree.checkpoints.empty()) return;
  const sim::RuntimeRecord& r = e.runtime;
  std::vector<std::uint64_t> events;
  std::string paths;
  for (const auto& [path, started] : tree.running) {
    events.push_back(started);
    paths += (paths.empty() ? "'" : ", '") + path + "'";
  }
  for (const auto& [path, sent] : tree.checkpoints) {
    events.push_back(sent);
    paths += (paths.empty() ? "the checkpoint of '" : ", the checkpoint of '") + path + "'";
  }
  events.push_back(e.index);
  out.push_back(violation(SafeYield{}.name(),
                          fmt::format("{} released {} token {} {} while {} of the tree was busy",
                                      r.holder, runtime::to_string(r.key), r.token,
                                      tree.waits_open > 0 ? "during a remote-children wait"
                                                          : "outside a remote-children wait",
                                      paths),
                          std::move(events)));
}

// Work for the tree at a holder that released its lease and has not taken it again: a lane was busy
// (not yet started, or between steps) when the lease was given back.
void work_after_release(const sim::HistoryEvent& e, const TreeState& tree, std::string_view what,
                        std::vector<Violation>& out) {
  if (!tree.released) return;
  const sim::RuntimeRecord& r = e.runtime;
  out.push_back(violation(SafeYield{}.name(),
                          fmt::format("{} {} '{}' of {} after it released the tree's lease and "
                                      "before it took it again: a lane was busy at the release",
                                      r.holder, what, r.step, runtime::to_string(r.key)),
                          {*tree.released, e.index}));
}

}  // namespace

void check_safe_yield(const Events& events, std::vector<Violation>& out) {
  // Only looked up: hashed (KeyHash).
  std::unordered_map<TreeAtHolder, TreeState, KeyHash> trees;
  std::unordered_map<HeldToken, std::uint64_t, KeyHash> released;  // -> the kLeaseReleased
  for (const sim::HistoryEvent& e : events) {
    const sim::RuntimeRecord* r = runtime_event(e);
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
        tree.checkpoints.erase(r->step);  // a step's checkpoint with no reply ends with its step
        break;
      case EventKind::kCheckpointSent:
        tree.checkpoints[r->step] = e.index;
        work_after_release(e, tree, "sent the checkpoint of", out);
        break;
      case EventKind::kCheckpointCommitted:
      case EventKind::kCheckpointRefused:
        tree.checkpoints.erase(r->step);
        break;
      case EventKind::kErrorClassified:
      case EventKind::kTreeAbandoned:
      case EventKind::kLeaseLost:
        tree.checkpoints.clear();  // a checkpoint that got no reply ended with the pass's error
        break;
      case EventKind::kLeaseTaken:
        tree.released.reset();
        break;
      case EventKind::kLeaseReleased:
        judge_release(e, tree, out);
        released.try_emplace(held_token(*r), e.index);
        tree.released = e.index;
        break;
      case EventKind::kStepStarted:
        tree.running[r->step] = e.index;
        tree.checkpoints.erase(r->step);
        if (!released.contains(held_token(*r))) work_after_release(e, tree, "started step", out);
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
