#pragma once
#include <cstdint>

namespace fencesim::sim {

// A simulated process. Node 0 is the world itself: the harness's own fibers.
using NodeId = std::uint32_t;
inline constexpr NodeId kWorldNode = 0;

}  // namespace fencesim::sim
