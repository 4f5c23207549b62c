#pragma once
// The ADR's error codes as the oracles read them in the history (a pass's end, a step's outcome,
// a run's classification), written here from the ADR, never taken from the runtime's constants:
// a runtime that reports another code is then caught, not followed.
#include <string_view>

namespace fencesim::properties::codes {

inline constexpr std::string_view kLeaseLost = "execution.lease-lost";
inline constexpr std::string_view kFenced = "execution.lease-lost.fenced";
inline constexpr std::string_view kCancelled = "execution.cancelled";

// A loss of the lease: lease-lost itself or one of its refinements ("execution.lease-lost.fenced").
inline bool is_lease_loss(std::string_view code) {
  return code.starts_with(kLeaseLost) &&
         (code.size() == kLeaseLost.size() || code[kLeaseLost.size()] == '.');
}

}  // namespace fencesim::properties::codes
