#include "runtime/placement_queue.h"

#include <algorithm>

#include "runtime/scope_key.h"

namespace fencesim::runtime {

bool is_child_execution_id(std::string_view lease_execution_id) {
  return lease_execution_id.starts_with(kChildExecutionPrefix);
}

LeaseKey child_lease_key(const LeaseKey& parent, const std::string& path) {
  return LeaseKey{parent.tenant_id, std::string(kChildExecutionPrefix) +
                                        make_scope_key({parent.lease_execution_id, path})};
}

void MemoryPlacementQueue::place(const LeaseKey& key, const std::string& workflow,
                                 const std::optional<LeaseKey>& parent) {
  if (!parent && is_child_execution_id(key.lease_execution_id)) {
    throw PlacementError("a root's execution id may not start with the reserved child prefix: " +
                         key.lease_execution_id);
  }
  if (placements_.contains(key)) return;
  const auto placed =
      placements_.emplace(key, Placement{key, workflow, parent, next_sequence_++, false}).first;
  unfinished_.emplace(placed->second.sequence, &placed->second);
}

std::vector<Placement> MemoryPlacementQueue::pending() {
  // Already in placement order, and without the finished ones: every instance asks at every poll,
  // and a long-lived queue holds far more finished placements than pending ones.
  std::vector<Placement> out;
  out.reserve(unfinished_.size());
  for (const auto& [sequence, placement] : unfinished_) out.push_back(*placement);
  return out;
}

void MemoryPlacementQueue::finish(const LeaseKey& key) {
  auto it = placements_.find(key);
  if (it == placements_.end()) return;
  it->second.finished = true;
  unfinished_.erase(it->second.sequence);
}

std::optional<Placement> MemoryPlacementQueue::find(const LeaseKey& key) {
  auto it = placements_.find(key);
  if (it == placements_.end()) return std::nullopt;
  return it->second;
}

}  // namespace fencesim::runtime
