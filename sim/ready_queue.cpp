#include "sim/ready_queue.h"

#include <algorithm>

namespace fencesim::sim {

bool ReadyQueue::push(FiberRecord* fiber) {
  // A killed fiber belongs to a dead incarnation: pausing its node's next life must not hold its
  // unwinding.
  const bool held = fiber->node_state->paused && !fiber->killed();
  insert_ordered(held ? held_ : runnable_, fiber);
  return held;
}

FiberRecord* ReadyQueue::take_uniform(Rng& rng) {
  // A lone candidate needs no draw; skipping it keeps the common ping-pong case cheap and is just
  // as deterministic.
  if (runnable_.size() == 1) return take_at(0);
  return take_at(static_cast<std::size_t>(rng.below(runnable_.size())));
}

FiberRecord* ReadyQueue::take_highest_priority() {
  std::size_t best = 0;
  for (std::size_t i = 1; i < runnable_.size(); ++i) {
    if (runnable_[i]->priority > runnable_[best]->priority) best = i;
  }
  return take_at(best);
}

std::size_t ReadyQueue::hold_node(NodeId node) {
  const std::size_t before = held_.size();
  move_if(runnable_, held_,
          [node](const FiberRecord* f) { return f->node == node && !f->killed(); });
  return held_.size() - before;
}

void ReadyQueue::release_node(NodeId node) {
  move_if(held_, runnable_, [node](const FiberRecord* f) { return f->node == node; });
}

FiberRecord* ReadyQueue::take_at(std::size_t index) {
  FiberRecord* fiber = runnable_[index];
  runnable_.erase(runnable_.begin() + static_cast<std::ptrdiff_t>(index));
  return fiber;
}

void ReadyQueue::insert_ordered(std::vector<FiberRecord*>& fibers, FiberRecord* fiber) {
  // Fibers mostly become ready in spawn order, so scanning from the back is short.
  auto position = fibers.end();
  while (position != fibers.begin() && (*(position - 1))->sequence > fiber->sequence) --position;
  fibers.insert(position, fiber);
}

void ReadyQueue::move_if(std::vector<FiberRecord*>& from, std::vector<FiberRecord*>& to,
                         const std::function<bool(const FiberRecord*)>& moves) {
  auto moved = std::stable_partition(from.begin(), from.end(),
                                     [&moves](const FiberRecord* f) { return !moves(f); });
  for (auto it = moved; it != from.end(); ++it) insert_ordered(to, *it);
  from.erase(moved, from.end());
}

}  // namespace fencesim::sim
