#pragma once
// Where each "sometimes" mark of a run happened: the history event at which it was reached, for
// the timeline to draw every mark where it happened. Workloads record some marks as events
// (kMark); the others properties::count_marks counts from the history (a sink refusing a stale
// token, a takeover while a step runs, ...): this places each of those at the event that made it.
//
// It follows count_marks' rules event by event (properties/marks.cpp; it cannot share its code
// without a change there), and a test holds the two together: for every scenario, the marks
// placed here are, name by name, as many as count_marks counts.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/world.h"

namespace fencesim::reports {

struct PlacedMark {
  std::string name;
  std::uint64_t event = 0;  // history index of the event at which the mark was reached
  friend bool operator==(const PlacedMark&, const PlacedMark&) = default;
};

// In history order.
std::vector<PlacedMark> place_marks(const sim::World& world);

}  // namespace fencesim::reports
