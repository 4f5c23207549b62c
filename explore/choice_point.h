#pragma once
// The search tree of an exploration, one path at a time: a choice point is a place in a run where
// more than one alternative was open (two or more runnable fibers at one pick, or a data choice
// with two or more values). The path of a run is its choice points in order; the chosen indices,
// in order, are the run's choice log, which replays it exactly (explore/replay_chooser.h).
#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "explore/footprint.h"
#include "sim/choice.h"

namespace fencesim::explore {

// Fibers asleep at a point of the reduced search, by spawn sequence, with the footprint their next
// step had when it was explored.
using SleepSet = std::map<std::uint64_t, Footprint>;

struct ChoicePoint {
  bool fiber = true;  // a pick of a fiber, or a data choice
  bool ordered = false;  // a data choice of which due event fires next (ChoiceSource::pick_order)
  std::size_t count = 0;
  std::vector<sim::Candidate> candidates;  // fiber points
  std::size_t chosen = 0;
  std::vector<bool> tried;  // alternatives whose subtree was explored (or is being explored)
  std::vector<bool> backtrack;  // alternatives to explore: all, or (reduced) those a race asked for
  int delays_before = 0;    // delays spent on the path before this point
  SleepSet sleep_in;        // fiber points of a reduced search: asleep on entry
  // Explored alternatives with their step's footprint; they sleep in every later sibling.
  std::vector<std::pair<std::size_t, Footprint>> done;
  Footprint chosen_footprint;  // of the chosen alternative's step, in the last run
  bool covered = false;        // every continuation is equivalent to one explored already

  // Delays a pick of `index` costs: the awake fibers it passes over (delay bounding: the default
  // is the first awake fiber in spawn order; each one skipped is a delay). Data choices are free.
  int delays_of(std::size_t index) const {
    // An event that overtakes k earlier ones of its instant costs k delays.
    if (ordered) return static_cast<int>(index);
    if (!fiber) return 0;
    int delays = 0;
    for (std::size_t i = 0; i < index; ++i) {
      if (!sleep_in.contains(candidates[i].fiber)) ++delays;
    }
    return delays;
  }
};

// The choice log of a path: the chosen index at each point.
inline std::vector<std::uint32_t> choice_log(const std::vector<ChoicePoint>& path) {
  std::vector<std::uint32_t> log;
  log.reserve(path.size());
  for (const ChoicePoint& point : path) log.push_back(static_cast<std::uint32_t>(point.chosen));
  return log;
}

}  // namespace fencesim::explore
