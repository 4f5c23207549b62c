#include "sim/tree_passes.h"

#include "sim/history.h"

namespace fencesim::sim {

TreePasses tree_passes(const std::vector<HistoryEvent>& events, const runtime::LeaseKey& key) {
  TreePasses passes;
  std::size_t from = 0;
  for (std::size_t i = events.size(); i > 0; --i) {
    const HistoryEvent& e = events[i - 1];
    if (e.world == WorldEventKind::kPhase && e.detail == "quiet") {
      from = i;
      passes.since_heal = true;
      break;
    }
  }
  // From the event right after the marker: a pass whose take the store granted at the heal's
  // instant starts there.
  for (std::size_t i = from; i < events.size(); ++i) {
    const HistoryEvent& e = events[i];
    if (e.world != WorldEventKind::kRuntime || !(e.runtime.key == key)) continue;
    if (e.runtime.kind == runtime::EventKind::kTreeStarted) ++passes.started;
    if (e.runtime.kind == runtime::EventKind::kTreeAbandoned) {
      passes.given_up.insert(e.runtime.detail);
    }
  }
  return passes;
}

}  // namespace fencesim::sim
