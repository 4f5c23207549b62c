#pragma once
// Wall seconds between two readings (or since one) of the sweep's steady clock (its budget, its progress, a
// worker's time on a run): the sweep's own bookkeeping, never a run's history.
#include <chrono>

namespace fencesim::cli {

inline double seconds_between(std::chrono::steady_clock::time_point from,
                              std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// Wall seconds from `start` until now.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return seconds_between(start, std::chrono::steady_clock::now());
}

}  // namespace fencesim::cli
