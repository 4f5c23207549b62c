#pragma once
// The chooser of one run of an exploration: it follows the path's choices for the points already
// on it (the prefix to replay, the last one set to the alternative to explore next), takes the
// default at every new point (the first fiber, in spawn order, that is not asleep; the first
// value), appends those points to the path, and records each chosen step's footprint.
//
// The reduction is Godefroid's sleep sets, kept along the run: a fiber whose next step was
// explored from an earlier state sleeps until a step that does not commute with it (footprint.h)
// runs. A sleeping fiber is never the default pick and never a new alternative; a state where
// every runnable fiber sleeps, or where a lone runnable fiber sleeps, is covered: every run
// through it is equivalent to one already explored, so nothing after it is explored again.
#include <cstdint>
#include <optional>
#include <vector>

#include "explore/choice_point.h"
#include "sim/choice.h"
#include "sim/scheduler.h"

namespace fencesim::explore {

class PathChooser final : public sim::ChoiceSource {
 public:
  // `path` is the prefix to follow (its last point's `chosen` is the alternative to try); new
  // points are appended to it. `reduce`: keep sleep sets.
  PathChooser(std::vector<ChoicePoint>& path, bool reduce);

  std::size_t pick_fiber(std::span<const sim::Candidate> runnable) override;
  std::size_t pick_value(std::string_view what, std::size_t count) override;
  // A data choice whose index k costs k delays (ChoicePoint::ordered).
  std::size_t pick_order(std::string_view what, std::size_t count) override;
  void touch(std::uint32_t object) override;

  // The world's scheduler, read for the virtual time of each step (set when the world is built).
  void set_clock(const sim::Scheduler* scheduler) { clock_ = scheduler; }
  // Ends the last step (call once the run is over).
  void finish() { close_step(); }

  // One step of the run: a fiber's turn from its pick to the next pick.
  struct Step {
    std::uint64_t fiber = 0;
    std::int64_t time_ns = 0;
    Footprint footprint;
    std::optional<std::size_t> point;  // the choice point that picked it; none for a lone fiber
  };
  const std::vector<Step>& steps() const { return steps_; }
  // The replayed prefix asked for other alternatives than the first run that made it: the world is
  // not deterministic (or the chooser's rules changed). Exploration cannot go on.
  bool diverged() const { return diverged_; }
  bool covered() const { return covered_; }

 private:
  std::size_t pick_data(std::size_t count, bool ordered);
  void close_step();
  void start_step(const sim::Candidate& fiber, std::optional<std::size_t> point);

  std::vector<ChoicePoint>& path_;
  std::size_t prefix_;
  bool reduce_;
  std::size_t depth_ = 0;
  int delays_ = 0;
  SleepSet sleep_;
  bool covered_ = false;
  bool diverged_ = false;
  const sim::Scheduler* clock_ = nullptr;
  std::vector<Step> steps_;
  bool in_step_ = false;  // the last of steps_ is running
};

// The reduction's second half, a dynamic partial-order reduction in the manner of Flanagan and
// Godefroid: after a run, each race between two of its steps (same instant, different fibers,
// footprints that do not commute) asks for the other order at the point where the first was
// picked. A point of a reduced search explores only the alternatives asked for.
void add_races(std::vector<ChoicePoint>& path, const std::vector<PathChooser::Step>& steps);

}  // namespace fencesim::explore
