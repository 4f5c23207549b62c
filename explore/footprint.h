#pragma once
// What one step of a fiber touched: its own node, the nodes its messages go to, the nodes it
// spawned or woke fibers on, and kTouchAll (sim/choice.h) for anything that may reach every node (a fault
// applied, a data choice, a step of the world's own fiber, which reads the stores directly).
//
// The independence relation of the reduction: two steps commute only if neither touched
// everything and they touched no node (nor shared object) in common. Conservative on purpose:
// two steps of one node never commute, and a message to a node conflicts with every step of that
// node and with every other message to it (deliveries at one instant run in send order).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/choice.h"

namespace fencesim::explore {

class Footprint {
 public:
  void add(std::uint32_t object) {
    if (object == sim::kTouchAll) {
      all_ = true;
      return;
    }
    const auto at = std::lower_bound(objects_.begin(), objects_.end(), object);
    if (at == objects_.end() || *at != object) objects_.insert(at, object);
  }
  bool touches_all() const { return all_; }
  const std::vector<std::uint32_t>& objects() const { return objects_; }

  friend bool independent(const Footprint& a, const Footprint& b) {
    if (a.all_ || b.all_) return false;
    auto i = a.objects_.begin();
    auto j = b.objects_.begin();
    while (i != a.objects_.end() && j != b.objects_.end()) {
      if (*i == *j) return false;
      if (*i < *j) {
        ++i;
      } else {
        ++j;
      }
    }
    return true;
  }

 private:
  bool all_ = false;
  std::vector<std::uint32_t> objects_;  // sorted, unique
};

}  // namespace fencesim::explore
