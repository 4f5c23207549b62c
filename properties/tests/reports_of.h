#pragma once
// What a test of "every report, not only the first" compares: the events each report of an oracle
// points at, in the order reported. An oracle that returns after its first report still fails a
// run, so only a history with two violations of one kind, both asserted, tells it from a correct
// one (tools/quiet-oracles.py --sites --first-only).
#include <cstdint>
#include <vector>

#include "properties/invariant.h"

namespace fencesim::properties::testing {

using Reports = std::vector<std::vector<std::uint64_t>>;

inline Reports events_of(const std::vector<Violation>& found) {
  Reports events;
  for (const Violation& v : found) events.push_back(v.events);
  return events;
}

}  // namespace fencesim::properties::testing
