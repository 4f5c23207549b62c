#pragma once
// A finished one-shard sweep's manifest (sweep.json) of kleppmann-fencing, seeds 1..`seeds_last`
// under `strategies`: what the tests of a sweep's configuration and pages change one field of.
#include <cstdint>
#include <string>

#include "reports/sweep_config.h"

namespace fencesim::reports::testing {

inline SweepManifest one_scenario_sweep(const std::string& strategies, std::uint64_t seeds_last) {
  SweepManifest m;
  m.fencesim_version = "0.1.0";
  m.configuration.scenarios = {SweptScenario{"kleppmann-fencing", "the story", {}}};
  m.configuration.seeds_first = 1;
  m.configuration.seeds_last = seeds_last;
  m.configuration.strategies = {strategies};
  m.shard_indices = {0};
  m.completed = true;
  return m;
}

}  // namespace fencesim::reports::testing
