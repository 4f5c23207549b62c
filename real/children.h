#pragma once
// The instance processes of a real run, as the coordinator holds them. Each child is started in a
// process group of its own (a Ctrl-C at the terminal reaches only the coordinator, which then ends
// them), asks the kernel to SIGKILL it if the coordinator dies (PR_SET_PDEATHSIG), and is killed
// and reaped by kill_all(), which the destructor calls on every exit path: no orphan, no stopped
// process left behind.
#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace fencesim::real {

class Children {
 public:
  Children() = default;
  ~Children() { kill_all(); }
  Children(const Children&) = delete;
  Children& operator=(const Children&) = delete;

  // Starts `argv` (argv[0] is the program's path); the child keeps `keep_fd` open, and nothing
  // else beyond stdin, stdout and stderr. Throws std::runtime_error when it cannot fork.
  pid_t spawn(const std::vector<std::string>& argv, int keep_fd);
  // Sends `signal` to a live child; false if it is not (or no longer) one.
  bool signal(pid_t pid, int signal);
  // Waits until `pid` has stopped (after a SIGSTOP) or ended.
  void wait_stopped(pid_t pid);
  // SIGKILLs `pid` and reaps it.
  void kill(pid_t pid);
  // Reaps children that ended on their own: their pids with their wait statuses.
  std::map<pid_t, int> reap_ended();
  void kill_all();
  bool live(pid_t pid) const;

 private:
  std::vector<pid_t> live_;
};

}  // namespace fencesim::real
