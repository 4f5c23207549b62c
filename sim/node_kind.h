#pragma once
// A node's kind in one word ("instance", "store", "sink", "world"): how timelines, failure
// signatures, liveness terms and spec outlines name it, so that they name it alike.
#include <string_view>

#include "sim/world.h"

namespace fencesim::sim {

std::string_view kind_word(NodeKind kind);

}  // namespace fencesim::sim
