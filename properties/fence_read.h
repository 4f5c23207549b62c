#pragma once
// The workload's record of a fence read (scenarios::read_fence, a kObserved "fence" record):
// "until <confirmedUntil ns> held" or "until <ns> lost <code of what assertHeld() threw>". Read by
// fence-after-loss and by refusal-hands-over's stopped-with-refusal check.
#include <optional>
#include <string_view>

#include "runtime/types.h"

namespace fencesim::properties {

struct FenceRead {
  runtime::Nanoseconds until = 0;
  bool held = false;
  std::string_view lost_code;  // when not held: the code assertHeld() threw (may be empty)
};

// nullopt for anything but the two forms above. lost_code views into `text`.
std::optional<FenceRead> parse_fence_read(std::string_view text);

}  // namespace fencesim::properties
