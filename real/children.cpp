#include "real/children.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>

namespace fencesim::real {

pid_t Children::spawn(const std::vector<std::string>& argv, int keep_fd) {
  std::vector<char*> pointers;
  for (const std::string& arg : argv) pointers.push_back(const_cast<char*>(arg.c_str()));
  pointers.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("cannot fork: ") + std::strerror(errno));
  if (pid == 0) {
    // Only async-signal-safe calls from here to exec.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the coordinator is already gone
    const int flags = ::fcntl(keep_fd, F_GETFD);
    if (flags >= 0) ::fcntl(keep_fd, F_SETFD, flags & ~FD_CLOEXEC);
    ::execv(pointers[0], pointers.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from here, so that it holds before either side goes on
  live_.push_back(pid);
  return pid;
}

bool Children::live(pid_t pid) const {
  return std::find(live_.begin(), live_.end(), pid) != live_.end();
}

bool Children::signal(pid_t pid, int sig) {
  if (!live(pid)) return false;
  return ::kill(pid, sig) == 0;
}

void Children::wait_stopped(pid_t pid) {
  if (!live(pid)) return;
  int status = 0;
  for (;;) {
    const pid_t got = ::waitpid(pid, &status, WUNTRACED);
    if (got < 0 && errno == EINTR) continue;
    if (got == pid && !WIFSTOPPED(status)) live_.erase(std::find(live_.begin(), live_.end(), pid));
    return;
  }
}

void Children::kill(pid_t pid) {
  if (!live(pid)) return;
  ::kill(pid, SIGKILL);
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  live_.erase(std::find(live_.begin(), live_.end(), pid));
}

std::map<pid_t, int> Children::reap_ended() {
  std::map<pid_t, int> ended;
  for (const pid_t pid : std::vector<pid_t>(live_)) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      ended[pid] = status;
      live_.erase(std::find(live_.begin(), live_.end(), pid));
    }
  }
  return ended;
}

void Children::kill_all() {
  for (const pid_t pid : std::vector<pid_t>(live_)) kill(pid);
}

}  // namespace fencesim::real
