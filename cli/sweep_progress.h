#pragma once
// What a sweep says while it runs. On a terminal: one line rewritten in place about twice a
// second (runs done, rate, failures, marks hit, time left or ETA). Elsewhere (a pipe, a CI log): a
// plain line every --progress-every. Each failure is printed as it is found, its command first on
// its line, so that a person or a script can copy it before the sweep ends.
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "cli/sweep_plan.h"
#include "reports/run_record.h"

namespace fencesim::cli {

// "12s", "3m07s", "1h02m".
std::string format_duration(double seconds);

class SweepProgress {
 public:
  using Clock = std::chrono::steady_clock;

  SweepProgress(std::ostream& out, bool terminal, const SweepPlan& plan,
                std::optional<std::uint64_t> total_runs, Clock::time_point start);

  void run_done(const reports::RunRecord& record);
  // Prints the command that shows the failure again, then what failed.
  void failure_found(const reports::RunRecord& record);
  void nondeterminism_found(const reports::RunRecord& record);
  // Prints the progress line when it is due.
  void tick(Clock::time_point now);
  // Ends the terminal's progress line, so that what follows starts on a fresh line.
  void finish();
  // How long until the next tick is due.
  double seconds_to_next_tick(Clock::time_point now) const;

 private:
  void print(const std::string& text);
  std::string status_line(Clock::time_point now) const;

  std::ostream& out_;
  bool terminal_;
  const SweepPlan& plan_;
  std::optional<std::uint64_t> total_runs_;
  Clock::time_point start_;
  Clock::time_point next_tick_;
  double period_seconds_;
  std::uint64_t runs_ = 0;
  std::uint64_t failures_ = 0;
  std::set<std::pair<std::string, std::string>> marks_hit_;  // (scenario, mark) it should reach
  std::uint64_t marks_expected_ = 0;
  bool line_open_ = false;  // a terminal progress line is on screen
};

}  // namespace fencesim::cli
