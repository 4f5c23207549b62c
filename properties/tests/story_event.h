#pragma once
// Hand-made histories of the oracles' tests: one way to stamp the next event of a story.
#include <cstdint>

#include "properties/invariants_builtin.h"
#include "sim/history.h"

namespace fencesim::properties::testing {

// The next event of `events`: its index is its position, and both its true time and its node's
// monotonic clock read `at_ns` (a story's nodes neither drift nor pause unless it says so).
inline sim::HistoryEvent next_event(const Events& events, sim::NodeId node,
                                    sim::WorldEventKind kind, std::int64_t at_ns) {
  sim::HistoryEvent e;
  e.index = events.size();
  e.time_ns = at_ns;
  e.local_monotonic_ns = at_ns;
  e.node = node;
  e.world = kind;
  return e;
}

}  // namespace fencesim::properties::testing
