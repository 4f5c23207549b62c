#pragma once
// The Boost.Fiber scheduling algorithm of a world. Boost asks it which context runs next at every
// switch; it answers, in this order:
//   1. a runnable worker fiber, picked by the Scheduler's seeded strategy;
//   2. the thread's main context, where Scheduler::run() advances virtual time and fires timers;
//   3. Boost's dispatcher fiber, which frees ended fibers (their stacks go back to the pool). It
//      goes before the main context while ended fibers wait to be freed, and the Scheduler sends
//      one switch in 32 ended fibers through it even when workers are runnable, so that a world
//      that always has a runnable fiber does not pile up stacks.
// The dispatcher and the main context are kept aside and never take part in a pick, so the choice
// among workers depends on the seed alone (the dispatcher draws nothing and counts no step). The
// dispatcher is always ready or running, since the blocking hook suspend_until is never reached
// while run() is in charge: that is what keeps pick_next from returning nullptr to a worker.
#include <boost/fiber/algo/algorithm.hpp>
#include <boost/fiber/context.hpp>
#include <boost/fiber/properties.hpp>

#include <cstdint>

#include "sim/fiber_record.h"

namespace fencesim::sim {

class Scheduler;

// Per-context data: the fiber's record for workers spawned by Scheduler::spawn, null for the main
// and dispatcher contexts.
class FiberProperties : public boost::fibers::fiber_properties {
 public:
  explicit FiberProperties(boost::fibers::context* context) noexcept
      : boost::fibers::fiber_properties(context) {}

  FiberRecord* record = nullptr;
};

class SimAlgorithm final : public boost::fibers::algo::algorithm_with_properties<FiberProperties> {
 public:
  // Registers itself with the owner; Boost owns the object.
  explicit SimAlgorithm(Scheduler* owner) noexcept;

  void awakened(boost::fibers::context* context, FiberProperties& properties) noexcept override;
  boost::fibers::context* pick_next() noexcept override;
  bool has_ready_fibers() const noexcept override;
  // Reached only if the main context parked somewhere other than run(): nothing could ever make
  // progress again, so it aborts with a message instead of spinning.
  void suspend_until(std::chrono::steady_clock::time_point const& until) noexcept override;
  void notify() noexcept override {}

  // Called by the owner just before it hands the thread back to round_robin.
  void detach() noexcept { owner_ = nullptr; }

 private:
  Scheduler* owner_;
  boost::fibers::context* dispatcher_ = nullptr;
  boost::fibers::context* main_ = nullptr;
  bool dispatcher_ready_ = false;
  bool main_ready_ = false;
  // Picks in a row of the main context or the dispatcher while a worker is runnable. run() yields
  // only to let runnable workers run, and a worker is picked within a switch or two unless the run
  // is interrupted (then run() returns at once); a long streak means no worker will run again, and
  // run() would yield forever below every step and virtual-time limit. The process ends with a
  // message instead of hanging.
  std::uint32_t idle_streak_ = 0;
  static constexpr std::uint32_t kIdleStreakLimit = 4096;
  void count_idle_pick() noexcept;
};

// Ends the process with a message: for broken invariants inside Boost's noexcept hooks, where
// throwing would terminate anyway but without saying why.
[[noreturn]] void fatal(const char* what) noexcept;

}  // namespace fencesim::sim
