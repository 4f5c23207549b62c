#pragma once
// The sweep's parent at work: hands the plan's runs to the worker processes in batches, re-runs a
// share of passing seeds in another worker for determinism, turns a worker's death into a harness
// failure of the seed it was running, and holds the budget: it stops handing out runs when what
// the workers hold would end past the budget (less the time kept for the reports), and kills what
// is still running at the last moment.
#include <cstdint>
#include <optional>
#include <vector>

#include "cli/sweep_pool.h"
#include "cli/sweep_progress.h"
#include "reports/run_record.h"

namespace fencesim::cli {

struct SweepResults {
  std::vector<reports::RunRecord> records;  // in the order they ended
  std::vector<reports::RunTime> times;
  std::uint64_t cut_by_budget = 0;   // runs handed out but not finished when the budget ran out
  std::uint64_t drawn = 0;           // failures chosen to be shrunk and drawn (--draw-limit)
  bool stopped_at_failures = false;  // --stop-after-failures ended the sweep before its plan
  // SIGINT or SIGTERM stopped it (cli/sweep_interrupt.h): the signal, and the first seed of the
  // plan not handed out (none when every seed was).
  int interrupted_by = 0;
  std::optional<std::uint64_t> next_seed;
};

// Seconds kept at the end of a budget for writing the reports of `runs` runs, `drawn` of them
// failures shrunk and drawn.
double report_reserve_seconds(double budget_seconds, std::uint64_t runs, std::uint64_t drawn);

// Runs every task of `setup.plan` (or as many as the budget holds, counted from `start`); stops
// early, killing the runs in flight, when an InterruptCatcher catches a signal.
SweepResults run_sweep_tasks(const WorkerSetup& setup, SweepProgress& progress,
                             Clock::time_point start);

}  // namespace fencesim::cli
