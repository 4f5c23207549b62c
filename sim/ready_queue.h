#pragma once
// The ready fibers of a world, kept in two vectors ordered by spawn sequence: the runnable ones,
// and the ones held because their node is paused. Context addresses and fiber ids change from run
// to run, so neither the order nor any pick may depend on them; the spawn sequence does not.
#include <cstddef>
#include <functional>
#include <vector>

#include "sim/fiber_record.h"
#include "sim/random.h"

namespace fencesim::sim {

class ReadyQueue {
 public:
  // Files the fiber as runnable, or as held when its node is paused (killed fibers are never
  // held: they must unwind).
  // Returns whether it was held.
  bool push(FiberRecord* fiber);

  bool has_runnable() const { return !runnable_.empty(); }
  std::size_t runnable_count() const { return runnable_.size(); }
  std::size_t held_count() const { return held_.size(); }

  // REQUIRES: has_runnable().
  FiberRecord* take_uniform(Rng& rng);
  // Highest priority first; the earlier spawned one on a tie. REQUIRES: has_runnable().
  FiberRecord* take_highest_priority();

  // The runnable fibers in spawn order, and taking one of them by its index there (an explorer's
  // pick). REQUIRES: index < runnable_count().
  const std::vector<FiberRecord*>& runnable() const { return runnable_; }
  FiberRecord* take_index(std::size_t index) { return take_at(index); }

  // Moves the node's runnable (and not killed) fibers aside until release_node.
  // Returns how many it moved (wake-ups the pause takes from the node).
  std::size_t hold_node(NodeId node);
  void release_node(NodeId node);

 private:
  FiberRecord* take_at(std::size_t index);
  static void insert_ordered(std::vector<FiberRecord*>& fibers, FiberRecord* fiber);
  static void move_if(std::vector<FiberRecord*>& from, std::vector<FiberRecord*>& to,
                      const std::function<bool(const FiberRecord*)>& moves);

  std::vector<FiberRecord*> runnable_;
  std::vector<FiberRecord*> held_;
};

}  // namespace fencesim::sim
