#pragma once
// The one clock every process of a real run shares: CLOCK_MONOTONIC, which is system-wide, read
// against the run's start and divided by the time scale, so that every process (the coordinator
// and each instance) stamps its events on the same axis, in the scenario's nanoseconds. At scale
// 0.01 a scenario's 30 s lease lasts 300 ms of real time.
#include <time.h>

#include <cstdint>

namespace fencesim::real {

// Every node's wall clock starts at the same epoch, as in the simulation (sim::World::add_node).
inline constexpr std::int64_t kWallEpochNs = 1'700'000'000LL * 1'000'000'000LL;

inline std::int64_t steady_now_ns() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000LL + now.tv_nsec;
}

class RunClock {
 public:
  // `start_steady_ns`: CLOCK_MONOTONIC at the run's start; `scale`: real seconds per scenario
  // second (0 < scale).
  RunClock(std::int64_t start_steady_ns, double scale) : start_ns_(start_steady_ns), scale_(scale) {}

  // Scenario time since the run's start.
  std::int64_t now_ns() const { return to_scenario_ns(steady_now_ns() - start_ns_); }
  std::int64_t to_scenario_ns(std::int64_t real_ns) const {
    return static_cast<std::int64_t>(static_cast<double>(real_ns) / scale_);
  }
  std::int64_t to_real_ns(std::int64_t scenario_ns) const {
    return static_cast<std::int64_t>(static_cast<double>(scenario_ns) * scale_);
  }
  std::int64_t start_steady_ns() const { return start_ns_; }
  // Moves the run's start (the ready handshake: every process parks until all have opened their
  // stores, then the run starts for all of them at once).
  void start_at(std::int64_t start_steady_ns) { start_ns_ = start_steady_ns; }
  double scale() const { return scale_; }

 private:
  std::int64_t start_ns_;
  double scale_;
};

}  // namespace fencesim::real
