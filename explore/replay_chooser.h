#pragma once
// Replays a choice log (a run's chosen indices at its choice points, in order): every pick with
// more than one alternative takes the next logged index. A log that runs out, or an index past
// the alternatives, marks the replay as diverged and falls back to the first alternative, so that
// the run still ends and its verdict (a different hash) says so.
#include <cstdint>
#include <vector>

#include "sim/choice.h"

namespace fencesim::explore {

class ReplayChooser final : public sim::ChoiceSource {
 public:
  explicit ReplayChooser(std::vector<std::uint32_t> log) : log_(std::move(log)) {}

  std::size_t pick_fiber(std::span<const sim::Candidate> runnable) override {
    return next(runnable.size());
  }
  std::size_t pick_value(std::string_view, std::size_t count) override { return next(count); }
  void touch(std::uint32_t) override {}

  // Whether the run asked for exactly the logged choices, each within its alternatives.
  bool matched() const { return !diverged_ && position_ == log_.size(); }

 private:
  std::size_t next(std::size_t count) {
    if (count <= 1) return 0;
    if (position_ >= log_.size() || log_[position_] >= count) {
      diverged_ = true;
      ++position_;
      return 0;
    }
    return log_[position_++];
  }

  std::vector<std::uint32_t> log_;
  std::size_t position_ = 0;
  bool diverged_ = false;
};

}  // namespace fencesim::explore
