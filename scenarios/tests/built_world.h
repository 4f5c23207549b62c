#pragma once
// A scenario's world for one seed, configured and built as a run builds it, not run yet: the
// scenarios' tests read its plan and submissions, or run it and read what its faults did.
#include <cstdint>
#include <memory>

#include "scenarios/scenario.h"
#include "sim/world.h"

namespace fencesim::scenarios::testing {

inline std::unique_ptr<sim::World> built_world(const Scenario& scenario, std::uint64_t seed) {
  sim::WorldOptions options;
  options.seed = seed;
  if (scenario.configure) scenario.configure(options);
  auto world = std::make_unique<sim::World>(options);
  scenario.build(*world);
  return world;
}

}  // namespace fencesim::scenarios::testing
