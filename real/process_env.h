#pragma once
// The runtime's environment inside one instance process of a real run: Boost.Fiber on the
// process's only thread, real sleeps, and clocks read from the shared run clock (scaled) through
// the node's own sim::NodeClock, so that the plan's clock faults (drift, steps, a migration's
// wall step) are offsets of this process's clocks, as in the simulation.
#include <random>

#include "real/run_clock.h"
#include "runtime/env.h"
#include "sim/node_clock.h"

namespace fencesim::real {

class ProcessEnv final : public runtime::Env {
 public:
  ProcessEnv(const RunClock& clock, std::uint64_t seed);
  runtime::Nanoseconds monotonic_ns() override;
  runtime::Nanoseconds wall_ns() override;
  void sleep(runtime::Nanoseconds duration) override;
  void yield() override;
  void spawn(std::string name, std::function<void()> body) override;
  std::unique_ptr<runtime::Notification> make_notification() override;
  std::uint64_t random_u64() override;

  sim::NodeClock& node_clock() { return node_clock_; }
  const RunClock& run_clock() const { return clock_; }

 private:
  const RunClock& clock_;
  sim::NodeClock node_clock_;
  std::mt19937_64 random_;
};

// The stores' clock: the true run clock, no offsets (the SQLite file judges expiry by it, as the
// simulated lease store judges by its own undisturbed clock).
//
// A store call judges by one reading: the client wrapper latches the clock when it hands the call
// to the store, records that reading as the call's store_wall_ns, and the store reads the same
// value inside its transaction (the simulated store judges a call at one instant too).
class StoreClock final : public runtime::Clock {
 public:
  explicit StoreClock(const RunClock& clock) : clock_(clock) {}
  runtime::Nanoseconds monotonic_ns() override { return clock_.now_ns(); }
  runtime::Nanoseconds wall_ns() override {
    return latched_ns_ != 0 ? latched_ns_ : kWallEpochNs + clock_.now_ns();
  }
  // Reads the clock and keeps answering that reading until unlatch().
  runtime::Nanoseconds latch() {
    latched_ns_ = kWallEpochNs + clock_.now_ns();
    return latched_ns_;
  }
  void unlatch() { latched_ns_ = 0; }

 private:
  const RunClock& clock_;
  runtime::Nanoseconds latched_ns_ = 0;
};

}  // namespace fencesim::real
