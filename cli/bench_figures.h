#pragma once
// The figures `fencesim bench` reports from its rounds: one slow or fast round on a shared
// machine must not decide a goal's verdict, so a figure taken in rounds is their median.
#include <algorithm>
#include <vector>

#include "runtime/check.h"

namespace fencesim::cli {

// The middle value of `rounds` in order of size (the upper middle of an even count), whatever
// order they were taken in. REQUIRES: at least one round.
inline double median_of_rounds(std::vector<double> rounds) {
  check(!rounds.empty(), "a median needs a round");
  std::sort(rounds.begin(), rounds.end());
  return rounds[rounds.size() / 2];
}

}  // namespace fencesim::cli
