#pragma once
// A sweep's worker process: reads tasks from the parent, runs each world, keeps each failure's
// replay file, shrinks and draws it when the parent says so (the parent counts failures per kind
// against --draw-limit), and answers one line a task (cli/sweep_protocol.h). A world that
// crashes, aborts or hangs takes only this process down; the parent reports the seed and starts
// another worker.
#include <csignal>
#include <cstdint>
#include <optional>
#include <string>

#include "cli/sweep_plan.h"

namespace fencesim::cli {

// A test hook, never set in use: FENCESIM_TEST_CRASH_SEED=N makes a worker misbehave when it is
// handed seed N (not a determinism re-run) in the way FENCESIM_TEST_CRASH_KIND says: "segv"
// (default: raise SIGSEGV), "abort", "hang" (sleep until killed) or "throw" (an exception out of
// the harness). It lets tests prove that the sweep survives each. "hang-after-branching" hangs
// the run of seed N in a branching sweep once its first branches have ended: their records reach
// the sweep, the run's never does (a test interrupts the sweep then); "segv-in-second-branch"
// kills the second branch of each of seed N's branch points before it answers (the worker reports
// it lost). "segv-on-rerun" kills the worker on seed N's determinism re-run, "throw-on-rerun"
// throws out of that re-run; "verdict-differs-in-another-worker" adds a violation to that re-run
// when it runs in a worker that did not run the first run; "segv-while-shrinking" and
// "hang-while-shrinking" kill or hang the worker in the shrinking of seed N's failure, once its
// replay file is kept; "slow-around-found" sleeps 1.8 s before seed N's "found" and 1.8 s more
// before its shrinking (each within a run timeout of 3 s, the two together beyond it).
// "verdict-differs-on-second-run" is check-determinism's: its second run of
// seed N finds a violation on the same history.
struct CrashHook {
  std::uint64_t seed = 0;
  std::string kind;
};
// Reads the hook from the environment; nullopt when FENCESIM_TEST_CRASH_SEED is not set.
// Throws UsageError for a malformed value.
std::optional<CrashHook> crash_hook_from_environment();

struct WorkerSetup {
  const scenarios::ScenarioRegistry* registry = nullptr;
  const SweepPlan* plan = nullptr;
  std::optional<CrashHook> crash_hook;
};

// A worker past --run-timeout is sent kOverdueSignal: it writes the kinds of its run's last
// events to its stderr (sim/last_events.h) and ends with kOverdueWorkerExit.
inline constexpr int kOverdueSignal = SIGUSR2;
inline constexpr int kOverdueWorkerExit = 124;

// Serves tasks from `task_fd` until it closes, answering on `result_fd`, then ends the process
// with _exit (a forked child must not run the parent's exit handlers or flush its buffers).
[[noreturn]] void run_worker(const WorkerSetup& setup, int task_fd, int result_fd);

}  // namespace fencesim::cli
