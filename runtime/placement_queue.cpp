#include "runtime/placement_queue.h"

#include <algorithm>

namespace fencesim::runtime {

void MemoryPlacementQueue::place(const LeaseKey& key, const std::string& workflow,
                                 const std::optional<LeaseKey>& parent) {
  if (placements_.contains(key)) return;
  placements_.emplace(key, Placement{key, workflow, parent, next_sequence_++, false});
}

std::vector<Placement> MemoryPlacementQueue::pending() {
  std::vector<Placement> out;
  for (const auto& [key, placement] : placements_) {
    if (!placement.finished) out.push_back(placement);
  }
  std::sort(out.begin(), out.end(),
            [](const Placement& a, const Placement& b) { return a.sequence < b.sequence; });
  return out;
}

void MemoryPlacementQueue::finish(const LeaseKey& key) {
  auto it = placements_.find(key);
  if (it != placements_.end()) it->second.finished = true;
}

std::optional<Placement> MemoryPlacementQueue::find(const LeaseKey& key) {
  auto it = placements_.find(key);
  if (it == placements_.end()) return std::nullopt;
  return it->second;
}

}  // namespace fencesim::runtime
