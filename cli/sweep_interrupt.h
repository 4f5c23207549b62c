#pragma once
// A sweep stopped by SIGINT (Ctrl-C) or SIGTERM (a CI cancel, a pod preempted with its grace
// period) keeps its work: the parent catches the signal, stops its workers, writes every report of
// what ran (marked interrupted, with the seeds not run) and exits 128 + the signal;
// `fencesim sweep --resume OUT` runs what is missing (docs/reports.md, "Interrupted sweeps").
#include <cstdint>
#include <optional>
#include <vector>

#include "cli/sweep_plan.h"
#include "reports/interruption.h"
#include "reports/run_record.h"

namespace fencesim::cli {

// While one lives, SIGINT and SIGTERM are caught, not fatal: caught() says which came first. The
// handlers do not restart system calls, so a parent waiting on its workers wakes at once. A second
// signal ends the process the default way (a user who presses Ctrl-C twice means it).
class InterruptCatcher {
 public:
  InterruptCatcher();
  ~InterruptCatcher();
  InterruptCatcher(const InterruptCatcher&) = delete;
  InterruptCatcher& operator=(const InterruptCatcher&) = delete;
  // 0, or the first signal caught since the catcher was made.
  static int caught();
};

// In a sweep's worker: SIGINT and SIGTERM are the parent's to decide (a terminal's Ctrl-C reaches
// the whole process group); the parent ends its workers itself.
void leave_interrupts_to_the_parent();

// The seeds of the plan's shard with a run missing from `records` (branch runs aside): each seed
// before `next_seed` is checked for all its (scenario, strategy) runs; from `next_seed` on every
// seed of the plan is missing (to the range's last, or without end for a budget). nullopt: the
// plan's every seed was handed out.
std::vector<reports::SeedSpan> seeds_not_run(const SweepPlan& plan,
                                             const std::vector<reports::RunRecord>& records,
                                             std::optional<std::uint64_t> next_seed);

// A branch run's record is kept when its branch ends, its parent's only when the parent ends: a
// sweep stopped between the two holds branch runs of a seed it did not finish. That seed is not run
// (seeds_not_run), so a resume runs it again and it forks the same branches again: kept, they would
// be in runs.jsonl twice (counted twice, and refused by merge). So a branch run stays only beside
// its parent's record (same scenario, strategy and seed, no branch): the others are dropped from
// `records`, and their times from `times` (a parent not done has no time of its own). Returns how
// many records were dropped.
std::size_t drop_branches_without_parent(std::vector<reports::RunRecord>& records,
                                         std::vector<reports::RunTime>& times);

}  // namespace fencesim::cli
