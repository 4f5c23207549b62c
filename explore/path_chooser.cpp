#include "explore/path_chooser.h"

namespace fencesim::explore {

PathChooser::PathChooser(std::vector<ChoicePoint>& path, bool reduce)
    : path_(path), prefix_(path.size()), reduce_(reduce) {}

void PathChooser::close_step() {
  if (!in_step_) return;
  in_step_ = false;
  const Step& step = steps_.back();
  if (step.point) path_[*step.point].chosen_footprint = step.footprint;
  if (!reduce_) return;
  // A sleeping fiber wakes once a step it does not commute with has run.
  std::erase_if(sleep_,
                [&step](const auto& entry) { return !independent(entry.second, step.footprint); });
}

void PathChooser::start_step(const sim::Candidate& fiber, std::optional<std::size_t> point) {
  in_step_ = true;
  Step step;
  step.fiber = fiber.fiber;
  step.time_ns = clock_ != nullptr ? clock_->now_ns() : 0;
  step.footprint.add(fiber.node);
  // The world's own fibers (the liveness watcher) read the stores directly.
  if (fiber.node == sim::kWorldNode) step.footprint.add(sim::kTouchAll);
  step.point = point;
  steps_.push_back(std::move(step));
}

void PathChooser::touch(std::uint32_t object) {
  if (in_step_) steps_.back().footprint.add(object);
}

std::size_t PathChooser::pick_fiber(std::span<const sim::Candidate> runnable) {
  close_step();
  if (runnable.size() == 1) {
    if (reduce_ && sleep_.contains(runnable[0].fiber)) covered_ = true;
    sleep_.erase(runnable[0].fiber);
    start_step(runnable[0], std::nullopt);
    return 0;
  }
  const std::size_t depth = depth_++;
  std::size_t chosen = 0;
  if (depth < prefix_) {
    ChoicePoint& point = path_[depth];
    bool same = point.fiber && point.count == runnable.size();
    for (std::size_t i = 0; same && i < runnable.size(); ++i) {
      same = point.candidates[i].fiber == runnable[i].fiber &&
             point.candidates[i].node == runnable[i].node;
    }
    if (!same) {
      diverged_ = true;
    } else {
      chosen = point.chosen;
      if (reduce_) {
        // The siblings explored before the chosen one sleep in its subtree.
        for (const auto& [index, footprint] : point.done) {
          if (index != chosen) sleep_[point.candidates[index].fiber] = footprint;
        }
      }
    }
  } else {
    ChoicePoint point;
    point.fiber = true;
    point.count = runnable.size();
    point.candidates.assign(runnable.begin(), runnable.end());
    point.tried.assign(point.count, false);
    point.delays_before = delays_;
    if (reduce_) point.sleep_in = sleep_;
    chosen = point.count;
    for (std::size_t i = 0; i < point.count; ++i) {
      if (!sleep_.contains(runnable[i].fiber)) {
        chosen = i;
        break;
      }
    }
    if (chosen == point.count) {
      covered_ = true;  // every runnable fiber sleeps
      chosen = 0;
    }
    point.covered = covered_;
    point.chosen = chosen;
    point.tried[chosen] = true;
    // Reduced: only the default, until a race found in a run asks for another (add_races).
    point.backtrack.assign(point.count, !reduce_);
    point.backtrack[chosen] = true;
    path_.push_back(std::move(point));
  }
  if (depth < path_.size()) delays_ += path_[depth].delays_of(chosen);
  sleep_.erase(runnable[chosen].fiber);
  start_step(runnable[chosen], depth);
  return chosen;
}

std::size_t PathChooser::pick_value(std::string_view, std::size_t count) {
  return pick_data(count, false);
}

std::size_t PathChooser::pick_order(std::string_view, std::size_t count) {
  return pick_data(count, true);
}

std::size_t PathChooser::pick_data(std::size_t count, bool ordered) {
  if (count <= 1) return 0;
  const std::size_t depth = depth_++;
  if (depth < prefix_) {
    const ChoicePoint& point = path_[depth];
    if (point.fiber || point.ordered != ordered || point.count != count) {
      diverged_ = true;
      return 0;
    }
    delays_ += point.delays_of(point.chosen);
    return point.chosen;
  }
  ChoicePoint point;
  point.fiber = false;
  point.ordered = ordered;
  point.count = count;
  point.tried.assign(count, false);
  point.tried[0] = true;
  point.backtrack.assign(count, true);  // every value is explored
  point.delays_before = delays_;
  point.covered = covered_;
  path_.push_back(std::move(point));
  return 0;
}

}  // namespace fencesim::explore

namespace fencesim::explore {

void add_races(std::vector<ChoicePoint>& path, const std::vector<PathChooser::Step>& steps) {
  // A race: two steps of different fibers at one instant that do not commute. Only steps of one
  // instant can be reordered (virtual time moves on only when no fiber is runnable). Every such
  // pair, not only the last one before each step as in Flanagan and Godefroid's DPOR: more
  // alternatives, never fewer.
  std::size_t instant_begin = 0;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    if (steps[k].time_ns != steps[instant_begin].time_ns) instant_begin = k;
    std::optional<std::size_t> last_point;
    for (std::size_t i = instant_begin; i < k; ++i) {
      if (steps[i].point) last_point = steps[i].point;
      if (steps[i].fiber == steps[k].fiber) continue;
      if (independent(steps[i].footprint, steps[k].footprint)) continue;
      // Reverse it at the pick of step i: run k's fiber there, or, if it was not runnable then,
      // every fiber that was (one of them leads to it). A lone pick offers nothing: the latest
      // choice point of the instant before it does.
      const std::optional<std::size_t> at = steps[i].point ? steps[i].point : last_point;
      if (!at || *at >= path.size()) continue;
      ChoicePoint& point = path[*at];
      bool runnable = false;
      for (std::size_t c = 0; c < point.count; ++c) {
        if (point.candidates[c].fiber == steps[k].fiber) {
          point.backtrack[c] = true;
          runnable = true;
        }
      }
      if (!runnable) point.backtrack.assign(point.count, true);
    }
  }
}

}  // namespace fencesim::explore
