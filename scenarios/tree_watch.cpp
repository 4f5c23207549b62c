#include "scenarios/tree_watch.h"

namespace fencesim::scenarios {

using runtime::EventKind;

void TreeWatch::catch_up() {
  const std::vector<sim::HistoryEvent>& events = world_.history().events();
  for (; read_ < events.size(); ++read_) {
    const sim::HistoryEvent& e = events[read_];
    if (e.world != sim::WorldEventKind::kRuntime) continue;
    const sim::RuntimeRecord& r = e.runtime;
    switch (r.kind) {
      case EventKind::kTreeStarted:
        trees_[r.key].started = true;
        break;
      case EventKind::kTreeCompleted:
        trees_[r.key].ended = true;
        [[fallthrough]];
      // A cancelled tree never runs again, but it did not complete: a withdrawal after it is
      // still refused (its checkpoint does not say it ended), so it is not "after-end".
      case EventKind::kTreeCancelled:
      case EventKind::kTreeAbandoned:  // the holder's pass is over: nothing of it is in flight
        trees_[r.key].holders.erase(r.holder);
        break;
      case EventKind::kStepStarted:
        trees_[r.key].holders[r.holder].running.insert(r.step);
        break;
      case EventKind::kStepEnded:
        trees_[r.key].holders[r.holder].running.erase(r.step);
        break;
      case EventKind::kCheckpointSent:
        trees_[r.key].holders[r.holder].checkpointing.insert(r.step);
        break;
      case EventKind::kCheckpointCommitted:
      case EventKind::kCheckpointRefused:
        trees_[r.key].holders[r.holder].checkpointing.erase(r.step);
        break;
      case EventKind::kRemoteWaitBegan:
        ++trees_[r.key].holders[r.holder].waiting;
        break;
      case EventKind::kRemoteWaitEnded:
        --trees_[r.key].holders[r.holder].waiting;
        break;
      default:
        break;
    }
  }
}

std::string TreeWatch::moment(const runtime::LeaseKey& tree, const std::string& step_path) {
  catch_up();
  auto it = trees_.find(sim::NameKey(tree));
  if (it == trees_.end() || !it->second.started) return "before-start";
  if (it->second.ended) return "after-end";
  bool any_running = false;
  bool any_checkpointing = false;
  bool any_waiting = false;
  const sim::Name step(step_path);
  for (const auto& [holder, state] : it->second.holders) {
    if (state.running.contains(step)) return "during-step";
    any_running = any_running || !state.running.empty();
    any_checkpointing = any_checkpointing || !state.checkpointing.empty();
    any_waiting = any_waiting || state.waiting > 0;
  }
  if (any_checkpointing) return "during-checkpoint";
  if (any_waiting) return "during-remote-wait";
  return any_running ? "during-another-step" : "between-steps";
}

bool TreeWatch::remote_waits_overlap() {
  catch_up();
  for (const auto& [key, tree] : trees_) {
    for (const auto& [holder, state] : tree.holders) {
      if (state.waiting >= 2) return true;
    }
  }
  return false;
}

}  // namespace fencesim::scenarios
