#pragma once
// The test environment of ADR-0023's fixtures: a manual clock that moves only when the test says
// so, fibers on the test thread, and stall/resume of a process (its fibers stop at their next call
// into the environment, as in a GC pause, and its timers do not fire while stalled).
//
// One ManualTime is shared by every process of a test; each process (instance, store) has its own
// ManualEnv over it. The test's own code runs on the main fiber: advance() moves time to each
// timer in turn and lets every fiber run until it blocks again, so a test reads like a timeline.
#include <boost/fiber/condition_variable.hpp>
#include <boost/fiber/mutex.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/env.h"

namespace fencesim::runtime::testing {

// Thrown out of blocked calls by shutdown(); not a std::exception, so runtime code cannot catch it.
struct ManualEnvShutdown {};

class ManualEnv;

class ManualTime {
 public:
  ManualTime() = default;
  ~ManualTime();
  Nanoseconds now_ns() const { return now_ns_; }
  // Moves time forward by `duration`, stopping at each timer due on the way, and runs every fiber
  // until all are blocked. REQUIRES: called from the main fiber.
  void advance(Nanoseconds duration);
  // Runs every ready fiber until all are blocked, without moving time.
  void settle();
  // Ends every fiber: each blocked call throws ManualEnvShutdown, and the fibers unwind.
  void shutdown();
  int live_fibers() const { return live_fibers_; }
  // Blocks the calling fiber until `generation` changes (a notification's wait).
  void wait_for_generation(const std::uint64_t& generation);
  void notify();
  const std::vector<std::string>& fiber_errors() const { return fiber_errors_; }

 private:
  friend class ManualEnv;
  // Blocks the calling fiber until `wake_ns` has come and `stalled` is false.
  void block_until(Nanoseconds wake_ns, const bool& stalled);

  Nanoseconds now_ns_ = 0;
  bool shutting_down_ = false;
  int live_fibers_ = 0;
  std::uint64_t progress_ = 0;       // bumped by every call into an environment
  std::vector<Nanoseconds> timers_;  // wake times of sleeping fibers
  std::vector<std::string> fiber_errors_;
  boost::fibers::mutex mutex_;
  boost::fibers::condition_variable changed_;
};

class ManualEnv final : public Env {
 public:
  ManualEnv(ManualTime& time, std::uint64_t seed = 1,
            Nanoseconds wall_offset_ns = 1'700'000'000 * kSecond);

  Nanoseconds monotonic_ns() override { return time_.now_ns(); }
  Nanoseconds wall_ns() override { return wall_offset_ns_ + time_.now_ns(); }
  void sleep(Nanoseconds duration) override;
  void yield() override;
  void spawn(std::string name, std::function<void()> body) override;
  std::unique_ptr<Notification> make_notification() override;
  std::uint64_t random_u64() override;

  // Stops this process's fibers (a GC pause or SIGSTOP) until resume().
  void stall() { stalled_ = true; }
  void resume();
  bool stalled() const { return stalled_; }
  // Steps this process's wall clock (a migration, an NTP step); its monotonic clock is untouched.
  void step_wall_clock(Nanoseconds delta) { wall_offset_ns_ += delta; }

 private:
  ManualTime& time_;
  Nanoseconds wall_offset_ns_;
  bool stalled_ = false;
  std::uint64_t random_state_;
};

}  // namespace fencesim::runtime::testing
