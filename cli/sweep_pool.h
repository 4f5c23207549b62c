#pragma once
// The sweep's worker processes: forked from the (single-threaded) parent, fed tasks over a pipe,
// answering over another (cli/sweep_protocol.h). The pool knows which tasks each worker holds, in
// order, so that when a worker dies (a signal, an abort, an exit) or overruns the run timeout (and
// is killed), the task it was running is known, the rest can be handed to others, and a new worker
// takes its place.
#include <sys/types.h>

#include <chrono>
#include <deque>
#include <string>
#include <vector>

#include "cli/sweep_protocol.h"
#include "cli/sweep_worker.h"

namespace fencesim::cli {

using Clock = std::chrono::steady_clock;

struct PoolEvent {
  enum class Kind { kMessage, kDied };
  Kind kind = Kind::kMessage;
  pid_t pid = 0;
  WorkerAnswer answer;  // kMessage: a worker's answer, decoded and checked whole once
  // kMessage: the task the answer is about. kDied: every task the worker held; the first is the
  // one it was running when it died.
  std::deque<TaskMessage> tasks;
  std::string death;  // kDied: how ("killed by signal 11 (Segmentation fault)")
};

class WorkerPool {
 public:
  // Starts `jobs` workers. Throws HarnessFailure if a process cannot be started.
  WorkerPool(const WorkerSetup& setup, unsigned jobs, double run_timeout_seconds);
  // Kills and reaps the workers still running.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  std::size_t size() const { return workers_.size(); }
  pid_t pid(std::size_t slot) const { return workers_[slot].pid; }
  // The tasks sent to a worker and not yet answered, the running one first.
  const std::deque<TaskMessage>& held(std::size_t slot) const { return workers_[slot].held; }
  // How long the worker has been on its current task (0 when idle).
  double current_seconds(std::size_t slot, Clock::time_point now) const;
  bool busy() const;

  // Hands tasks to a worker. A worker that cannot be written to is dead: its death is reported by
  // the next wait().
  void send(std::size_t slot, const std::vector<TaskMessage>& batch);

  // Writes one line to the worker `pid`, if it still runs (a dead one is reported by wait()).
  void tell(pid_t pid, std::string_view line);

  // Waits at most `timeout_seconds` for answers and deaths. A worker whose current task ran past
  // the run timeout is killed and reported dead. Every dead worker is replaced at once.
  std::vector<PoolEvent> wait(double timeout_seconds);

  // Kills every worker that holds tasks (the budget is spent), reporting each as dead with
  // `reason`; idle workers are left alone.
  std::vector<PoolEvent> kill_busy(const std::string& reason);

  // Closes the task pipes (workers end when they read the end) and reaps every worker.
  void close();

 private:
  struct Worker {
    pid_t pid = -1;
    int task_fd = -1;
    int result_fd = -1;
    LineBuffer lines;
    std::deque<TaskMessage> held;
    Clock::time_point current_since;  // when the worker started its current task
  };

  void spawn(std::size_t slot);
  // Reaps the worker in `slot`, says how it ended, and puts a new one in its place.
  PoolEvent bury(std::size_t slot, const std::string& reason);
  void read_from(std::size_t slot, std::vector<PoolEvent>& events);
  void take_message(std::size_t slot, const std::string& line, std::vector<PoolEvent>& events);
  void kill_overdue(std::vector<PoolEvent>& events);
  // Ends a worker past its run's timeout, letting it say its last events first.
  static void end_overdue(pid_t pid);

  const WorkerSetup& setup_;
  double run_timeout_seconds_;
  std::vector<Worker> workers_;
  bool closed_ = false;
  std::uint64_t deaths_without_work_ = 0;
};

// "killed by signal 11 (Segmentation fault)", "exited with code 3".
std::string describe_wait_status(int status);

}  // namespace fencesim::cli
