#pragma once
// Stateless systematic exploration of one scenario's world, in the manner of CHESS and of
// Coyote's systematic mode: the world is deterministic and single-threaded, so a run is a function
// of its choices (which runnable fiber goes next at each pick; each data choice the scenario makes
// through World::choose, such as a fault's trigger and duration). The explorer runs the world,
// records the choice points it met, and goes depth-first over the choice logs by running the world
// again from the start with a prefix of the last log and the next alternative at its end.
//
// Bounded: picking the k-th awake fiber instead of the first costs k delays, and a path may spend
// at most `bound` of them (data choices are free: every one is explored). Reduced: sleep sets over
// an independence relation of footprints (explore/footprint.h). "Complete" means every path within
// the bound was run or shown equivalent to one that was.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "properties/run.h"
#include "scenarios/scenario.h"

namespace fencesim::explore {

struct ExploreOptions {
  std::string scenario;
  std::uint64_t seed = 1;  // the world's seed (node streams); the scheduler's picks are explored
  int bound = 2;           // delays per path
  std::uint64_t max_schedules = 100'000;
  bool reduce = true;
  std::string sink_double;  // as properties::RunRequest::sink_double
};

// One explored schedule that failed, with the choice log that runs it again.
struct ExploredFailure {
  std::uint64_t schedule = 0;  // 1-based, in exploration order
  properties::RunReport report;
  std::vector<std::uint32_t> choices;
};

struct ExploreResult {
  std::uint64_t schedules = 0;
  bool complete = false;
  std::uint64_t failures = 0;                         // failing schedules
  std::map<std::string, std::uint64_t> by_invariant;  // failing schedules by first invariant
  // Schedules that reached each mark (a run the reduction cut short, by what it reached before):
  // a story aimed at one instant says here whether any schedule met it.
  std::map<std::string, std::uint64_t> marks;
  std::uint64_t covered_runs = 0;  // runs cut short by the reduction (covered states)
  std::size_t deepest_path = 0;    // choice points on the longest path
  double wall_seconds = 0;
};

// Called for each failing schedule as it is found; return false to stop exploring.
using OnFailure = std::function<bool(const ExploredFailure&)>;

// Throws properties::UsageError for an unknown scenario, and std::runtime_error if a replayed
// prefix diverges (the world is not deterministic).
ExploreResult explore(const scenarios::ScenarioRegistry& registry, const ExploreOptions& options,
                      const OnFailure& on_failure = nullptr);

// A registry holding only `scenario`, whose worlds are driven by `*chooser` (read at each run, so
// the caller may swap it between runs). Throws properties::UsageError for an unknown scenario.
scenarios::ScenarioRegistry driven_registry(const scenarios::ScenarioRegistry& registry,
                                            const std::string& scenario,
                                            sim::ChoiceSource* const* chooser);

}  // namespace fencesim::explore
