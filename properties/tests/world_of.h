#pragma once
// An oracle judged as a sweep judges it: through its check of a world, whose history is a story's
// events (adopted as a real run's merged events are) and whose options are the test's. An oracle's
// logic tested alone says nothing of the line that hands it the world's history and terms: an
// adapter that returns early, or passes a default or another field, passes such tests.
#include <vector>

#include "properties/invariant.h"
#include "properties/invariants_builtin.h"
#include "sim/world.h"

namespace fencesim::properties::testing {

inline std::vector<Violation> judged_in_world(const Invariant& invariant, const Events& events,
                                              sim::WorldOptions options = {}) {
  sim::World world(std::move(options));
  for (const sim::HistoryEvent& e : events) world.adopt_event(e);
  std::vector<Violation> out;
  invariant.check(world, out);
  return out;
}

}  // namespace fencesim::properties::testing
