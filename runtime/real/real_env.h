#pragma once
// The real world behind the seam: the steady and system clocks and Boost.Fiber on the calling
// thread. This folder is the one place in runtime/ allowed to read real time.
//
// A RealEnv is one process's environment. All RealEnvs of a program share the thread's fiber
// scheduler. freeze_for() stops the process from outside, as SIGSTOP would: from then on every
// fiber of the process that reaches the environment (a sleep, a yield, a wake-up) stays stopped
// until the freeze ends, while the other processes on the thread go on.
#include <atomic>
#include <cstdint>
#include <random>

#include "runtime/env.h"

namespace fencesim::runtime::real {

class RealEnv final : public Env {
 public:
  RealEnv();
  Nanoseconds monotonic_ns() override;
  Nanoseconds wall_ns() override;
  void sleep(Nanoseconds duration) override;
  void yield() override;
  void spawn(std::string name, std::function<void()> body) override;
  std::unique_ptr<Notification> make_notification() override;
  std::uint64_t random_u64() override;

  void freeze_for(Nanoseconds duration);
  // Fibers spawned through this environment that have not ended yet.
  int live_fibers() const { return live_fibers_; }

 private:
  // Blocks the calling fiber while the process is frozen.
  void stop_while_frozen();

  Nanoseconds frozen_until_ns_ = 0;
  int live_fibers_ = 0;
  std::mt19937_64 random_;
};

}  // namespace fencesim::runtime::real
