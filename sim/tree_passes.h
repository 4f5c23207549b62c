#pragma once
// How a tree's passes went since the heal: what a liveness failure's term says of a tree the run
// left unfinished (sim/world_stuck.cpp). A tree that passes through again and again is told by how
// its passes ended, one stuck inside a pass (or in none) by the state the end found it in; so the
// count decides which of the two a failure is named as, and the shrinker keeps a run only while it
// is stuck the same way. Read from the history alone, so a test can hand it one.
#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "runtime/types.h"

namespace fencesim::sim {

struct HistoryEvent;

struct TreePasses {
  bool since_heal = false;  // the quiet phase's marker was found: counted from it, not the start
  int started = 0;          // the tree's kTreeStarted events counted
  std::set<std::string> given_up;  // how its passes ended: each kTreeAbandoned's code
};

// The passes of `key` from the first event after the last quiet-phase marker (the whole run when
// there is none).
TreePasses tree_passes(const std::vector<HistoryEvent>& events, const runtime::LeaseKey& key);

}  // namespace fencesim::sim
