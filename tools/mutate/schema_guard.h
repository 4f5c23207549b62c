// The guard of a mutant schema build (tools/mutate/schema.py): forced into every object of the
// schema tree with -include. The mutant FENCESIM_MUTANT names is on; with none, all are off and
// the binary behaves as the unmutated one (run.py checks that before judging).
#pragma once

#include <cstdlib>

// Deliberately not constexpr: a mutant in a constant expression must fail to compile (and be
// built on its own), not be silently off at compile time and judged "likely equivalent".
inline bool fencesim_mutant_on(int id) noexcept {
  // Read once: the environment cannot change during a run, and a guard sits in hot paths.
  static const int active = [] {
    const char* value = std::getenv("FENCESIM_MUTANT");
    return value == nullptr ? 0 : std::atoi(value);
  }();
  return active == id;
}
