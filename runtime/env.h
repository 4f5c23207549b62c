#pragma once
// The seam between the runtime and the world it runs in (as LevelDB's Env). The runtime reaches
// time, fibers and randomness only through this interface; it never reads a real clock, sleeps,
// spawns a thread or draws unseeded randomness itself. Two worlds implement it: runtime/real/ (real
// clocks, Boost.Fiber) and sim/ (virtual time, seeded scheduler, faults).
//
// One Env belongs to one process (an instance or a store node): its clocks are that process's
// clocks, which in a simulation may drift, step, or stop while the process is paused.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "runtime/types.h"

namespace fencesim::runtime {

class Clock {
 public:
  virtual ~Clock() = default;
  // Monotonic time of this process: for durations, lease timers and confirmedUntil. Never goes
  // backward, but may run fast or slow against true time within the drift bound.
  virtual Nanoseconds monotonic_ns() = 0;
  // Wall-clock time of this process (nanoseconds since the epoch): may step forward or backward.
  virtual Nanoseconds wall_ns() = 0;
};

// A wake-up between fibers of one process, used as a condition: callers loop
// `while (!condition) n.wait("what");` and whoever changes the condition calls notify_all().
// Fibers of one process never run at once, so nothing can slip between the check and the wait.
class Notification {
 public:
  virtual ~Notification() = default;
  // `awaited` says in a few fixed words what the caller waits for ("branches to end"): a run that
  // stops with fibers still waiting names it (a simulation's deadlock report and its signature),
  // so it must not carry ids. A string literal: an environment may keep the pointer while waiting.
  virtual void wait(const char* awaited) = 0;
  virtual void notify_all() = 0;
};

class Env : public Clock {
 public:
  // Suspends the calling fiber for at least `duration` of this process's monotonic time.
  // REQUIRES: called from a fiber of this process.
  virtual void sleep(Nanoseconds duration) = 0;
  // Gives other ready fibers a turn.
  virtual void yield() = 0;
  // Starts a fiber in this process. The body must not let an exception escape: the runtime
  // catches what it can handle at each fiber's entry; what escapes is reported by the world.
  virtual void spawn(std::string name, std::function<void()> body) = 0;
  virtual std::unique_ptr<Notification> make_notification() = 0;
  // Randomness for ids and jitter; seeded in a simulation.
  virtual std::uint64_t random_u64() = 0;
};

}  // namespace fencesim::runtime

// Unwinding. A world may end a process while its fibers are blocked (a crash, or the end of a
// simulation): the blocking call (sleep, yield, a notification wait or a store call) then throws an
// object that does not derive from std::exception. Runtime code therefore catches std::exception
// (or its own types), never `...` without rethrowing.
