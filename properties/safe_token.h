#pragma once
// The last token ADR-0023 allows: tokens are JavaScript safe integers (no bigint), so a key's
// epochs are spent at 2^53 - 1 and a take past it is an error, never a grant. The oracles' own
// constant, not the runtime's kTokenMax: an oracle that read the runtime's would move with it.
#include "runtime/types.h"

namespace fencesim::properties {

inline constexpr runtime::Token kLastSafeToken = 9'007'199'254'740'991;

}  // namespace fencesim::properties
