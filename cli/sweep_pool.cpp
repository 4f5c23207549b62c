#include "cli/sweep_pool.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "cli/execute.h"
#include "cli/seconds_between.h"

namespace fencesim::cli {

namespace {

// Workers that die before they were given anything mean the worker cannot start at all (out of
// memory, a broken build): stop instead of forking forever.
constexpr std::uint64_t kMaxDeathsWithoutWork = 8;

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

std::string describe_wait_status(int status) {
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    return fmt::format("killed by signal {} ({})", signal, strsignal(signal));
  }
  if (WIFEXITED(status)) return fmt::format("exited with code {}", WEXITSTATUS(status));
  return fmt::format("ended with wait status {}", status);
}

WorkerPool::WorkerPool(const WorkerSetup& setup, unsigned jobs, double run_timeout_seconds)
    : setup_(setup), run_timeout_seconds_(run_timeout_seconds), workers_(jobs) {
  for (std::size_t slot = 0; slot < workers_.size(); ++slot) spawn(slot);
}

WorkerPool::~WorkerPool() {
  for (Worker& worker : workers_) {
    if (worker.pid > 0) ::kill(worker.pid, SIGKILL);
  }
  close();
}

void WorkerPool::spawn(std::size_t slot) {
  int tasks[2];
  int results[2];
  if (::pipe2(tasks, O_CLOEXEC) != 0) {
    throw HarnessFailure(fmt::format("cannot make a pipe for a worker: {}", strerror(errno)));
  }
  if (::pipe2(results, O_CLOEXEC) != 0) {
    ::close(tasks[0]);
    ::close(tasks[1]);
    throw HarnessFailure(fmt::format("cannot make a pipe for a worker: {}", strerror(errno)));
  }
  // Buffered output would otherwise be written twice: once by the parent, once by the child.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {tasks[0], tasks[1], results[0], results[1]}) ::close(fd);
    throw HarnessFailure(fmt::format("cannot start a worker process: {}", strerror(errno)));
  }
  if (pid == 0) {
    // The child keeps only its own ends: another worker's pipes held open here would hide that
    // worker's death from the parent.
    for (Worker& other : workers_) {
      close_fd(other.task_fd);
      close_fd(other.result_fd);
    }
    ::close(tasks[1]);
    ::close(results[0]);
    run_worker(setup_, tasks[0], results[1]);
  }
  ::close(tasks[0]);
  ::close(results[1]);
  ::fcntl(results[0], F_SETFL, ::fcntl(results[0], F_GETFL) | O_NONBLOCK);
  Worker& worker = workers_[slot];
  worker = Worker{};
  worker.pid = pid;
  worker.task_fd = tasks[1];
  worker.result_fd = results[0];
}

double WorkerPool::current_seconds(std::size_t slot, Clock::time_point now) const {
  const Worker& worker = workers_[slot];
  return worker.held.empty() ? 0.0 : seconds_between(worker.current_since, now);
}

bool WorkerPool::busy() const {
  return std::any_of(workers_.begin(), workers_.end(),
                     [](const Worker& worker) { return !worker.held.empty(); });
}

void WorkerPool::send(std::size_t slot, const std::vector<TaskMessage>& batch) {
  Worker& worker = workers_[slot];
  if (batch.empty()) return;
  // An idle worker starts on the batch now; a busy one starts on it after what it holds.
  if (worker.held.empty()) worker.current_since = Clock::now();
  std::string text;
  for (const TaskMessage& message : batch) {
    text += encode_task(message);
    if (&message != &batch.back()) text += '\n';
    worker.held.push_back(message);
  }
  // A failed write means the worker is gone; poll() reports its pipe closed and bury() hands the
  // batch back with the rest of what it held.
  (void)write_line(worker.task_fd, text);
}

void WorkerPool::tell(pid_t pid, std::string_view line) {
  for (Worker& worker : workers_) {
    if (worker.pid == pid) (void)write_line(worker.task_fd, line);
  }
}

PoolEvent WorkerPool::bury(std::size_t slot, const std::string& reason) {
  Worker& worker = workers_[slot];
  int status = 0;
  while (::waitpid(worker.pid, &status, 0) < 0 && errno == EINTR) {
  }
  PoolEvent event;
  event.kind = PoolEvent::Kind::kDied;
  event.pid = worker.pid;
  event.tasks = std::move(worker.held);
  event.death = reason.empty() ? describe_wait_status(status) : reason;
  close_fd(worker.task_fd);
  close_fd(worker.result_fd);
  worker.pid = -1;
  if (event.tasks.empty() && ++deaths_without_work_ > kMaxDeathsWithoutWork) {
    throw HarnessFailure(fmt::format("sweep workers keep dying before any task ({})", event.death));
  }
  if (!closed_) spawn(slot);
  return event;
}

void WorkerPool::take_message(std::size_t slot, const std::string& line,
                              std::vector<PoolEvent>& events) {
  Worker& worker = workers_[slot];
  // Checked whole before the engine reads a field: a broken worker is killed, never trusted. The
  // engine reads the decoded answer only, so no field it uses escapes the check.
  std::optional<WorkerAnswer> answer = decode_answer(line);
  const bool valid = answer && !worker.held.empty() && answer->id == worker.held.front().id;
  if (!valid) {
    ::kill(worker.pid, SIGKILL);
    events.push_back(bury(slot, fmt::format("sent a malformed answer: {}", line.substr(0, 200))));
    return;
  }
  PoolEvent event;
  event.pid = worker.pid;
  event.tasks.push_back(worker.held.front());
  const std::string& type = answer->type;
  // "found" comes before shrinking: the shrinking gets a run timeout of its own; so does each
  // branch of a run (cli/sweep_branch.h), which answers before the run it branched from.
  worker.current_since = Clock::now();
  if (type != "found" && type != "branch") worker.held.pop_front();
  event.answer = std::move(*answer);
  events.push_back(std::move(event));
}

void WorkerPool::read_from(std::size_t slot, std::vector<PoolEvent>& events) {
  char buffer[65536];
  for (;;) {
    Worker& worker = workers_[slot];
    const ssize_t n = ::read(worker.result_fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) {
      events.push_back(bury(slot, ""));
      return;
    }
    worker.lines.append(buffer, static_cast<std::size_t>(n));
    while (std::optional<std::string> line = workers_[slot].lines.next()) {
      const pid_t pid = workers_[slot].pid;
      take_message(slot, *line, events);
      if (workers_[slot].pid != pid) return;  // killed for a malformed answer
    }
  }
}

void WorkerPool::end_overdue(pid_t pid) {
  // First asked to say its last events (cli/sweep_worker.cpp); a worker that cannot (its handler
  // blocked, the process stopped) is killed after a short grace. Reaped here; bury()'s own
  // waitpid then finds no child and leaves the status alone.
  ::kill(pid, kOverdueSignal);
  constexpr int kGraceSteps = 100;  // 100 x 10 ms
  for (int step = 0; step < kGraceSteps; ++step) {
    int status = 0;
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) return;
    ::usleep(10'000);
  }
  ::kill(pid, SIGKILL);
}

void WorkerPool::kill_overdue(std::vector<PoolEvent>& events) {
  const Clock::time_point now = Clock::now();
  for (std::size_t slot = 0; slot < workers_.size(); ++slot) {
    if (workers_[slot].held.empty()) continue;
    if (current_seconds(slot, now) < run_timeout_seconds_) continue;
    end_overdue(workers_[slot].pid);
    events.push_back(bury(
        slot, fmt::format("exceeded --run-timeout ({:g}s) and was killed", run_timeout_seconds_)));
  }
}

std::vector<PoolEvent> WorkerPool::wait(double timeout_seconds) {
  std::vector<PoolEvent> events;
  const Clock::time_point now = Clock::now();
  // Wake up in time for the first run timeout.
  for (std::size_t slot = 0; slot < workers_.size(); ++slot) {
    if (workers_[slot].held.empty()) continue;
    timeout_seconds =
        std::min(timeout_seconds, run_timeout_seconds_ - current_seconds(slot, now) + 0.001);
  }
  std::vector<pollfd> fds;
  for (const Worker& worker : workers_) fds.push_back(pollfd{worker.result_fd, POLLIN, 0});
  const int timeout_ms = static_cast<int>(std::clamp(timeout_seconds, 0.0, 3600.0) * 1000.0);
  const int ready = ::poll(fds.data(), fds.size(), timeout_ms);
  if (ready < 0 && errno != EINTR) {
    throw HarnessFailure(fmt::format("poll failed: {}", strerror(errno)));
  }
  for (std::size_t slot = 0; ready > 0 && slot < fds.size(); ++slot) {
    if (fds[slot].revents != 0) read_from(slot, events);
  }
  kill_overdue(events);
  return events;
}

std::vector<PoolEvent> WorkerPool::kill_busy(const std::string& reason) {
  closed_ = true;  // the sweep is ending: no new workers
  std::vector<PoolEvent> events;
  for (std::size_t slot = 0; slot < workers_.size(); ++slot) {
    if (workers_[slot].held.empty()) continue;
    ::kill(workers_[slot].pid, SIGKILL);
    events.push_back(bury(slot, reason));
  }
  return events;
}

void WorkerPool::close() {
  closed_ = true;
  for (Worker& worker : workers_) close_fd(worker.task_fd);
  for (Worker& worker : workers_) {
    if (worker.pid > 0) {
      int status = 0;
      while (::waitpid(worker.pid, &status, 0) < 0 && errno == EINTR) {
      }
      worker.pid = -1;
    }
    close_fd(worker.result_fd);
  }
}

}  // namespace fencesim::cli
