#pragma once
// Where the trees of a run are, as its history tells, for workloads that aim at a moment (a
// withdrawal's "during-checkpoint", a job's "two lanes wait on remote children"). The history only
// grows, so a watch reads each event once, when it is next asked: a question costs the events
// recorded since the last one, not a scan of the whole history (which made each question O(run)
// and a run with dozens of them quadratic).
#include <cstddef>
#include <map>
#include <set>
#include <string>

#include "runtime/types.h"
#include "sim/world.h"

namespace fencesim::scenarios {

class TreeWatch {
 public:
  explicit TreeWatch(const sim::World& world) : world_(world) {}

  // Where `tree` was, for its step `step_path`: "before-start", "during-step" (that very step
  // runs), "during-another-step", "during-checkpoint", "during-remote-wait", "between-steps",
  // "after-end".
  std::string moment(const runtime::LeaseKey& tree, const std::string& step_path);
  // Whether some holder waits on remote children in two lanes of one tree now.
  bool remote_waits_overlap();

 private:
  // Keyed by the history's names (sim/name.h): reading an event copies no bytes.
  struct Holder {
    std::set<sim::Name> running;
    std::set<sim::Name> checkpointing;
    int waiting = 0;
  };
  struct Tree {
    bool started = false;
    bool ended = false;
    std::map<sim::Name, Holder> holders;
  };

  void catch_up();

  const sim::World& world_;
  std::size_t read_ = 0;  // events read so far
  std::map<sim::NameKey, Tree> trees_;
};

}  // namespace fencesim::scenarios
