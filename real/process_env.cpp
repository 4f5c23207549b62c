#include "real/process_env.h"

#include <boost/fiber/all.hpp>
#include <chrono>
#include <cstdio>

#include "runtime/fiber_notification.h"

namespace fencesim::real {

ProcessEnv::ProcessEnv(const RunClock& clock, std::uint64_t seed)
    : clock_(clock), node_clock_(kWallEpochNs), random_(seed) {}

runtime::Nanoseconds ProcessEnv::monotonic_ns() {
  return node_clock_.monotonic_at(clock_.now_ns());
}

runtime::Nanoseconds ProcessEnv::wall_ns() {
  return node_clock_.wall_at(clock_.now_ns());
}

void ProcessEnv::sleep(runtime::Nanoseconds duration) {
  if (duration <= 0) {
    boost::this_fiber::yield();
    return;
  }
  // Until this process's monotonic clock has advanced by `duration` (it may drift).
  const runtime::Nanoseconds wake_true_ns =
      node_clock_.true_time_when(monotonic_ns() + duration);
  const std::int64_t real_ns = clock_.to_real_ns(wake_true_ns - clock_.now_ns());
  boost::this_fiber::sleep_for(std::chrono::nanoseconds(std::max<std::int64_t>(real_ns, 0)));
}

void ProcessEnv::yield() {
  boost::this_fiber::yield();
}

void ProcessEnv::spawn(std::string name, std::function<void()> body) {
  boost::fibers::fiber([name = std::move(name), body = std::move(body)] {
    try {
      body();
    } catch (const std::exception& error) {
      std::fprintf(stderr, "fiber '%s' ended by an exception: %s\n", name.c_str(), error.what());
    }
  }).detach();
}

std::unique_ptr<runtime::Notification> ProcessEnv::make_notification() {
  return std::make_unique<runtime::FiberNotification>();
}

std::uint64_t ProcessEnv::random_u64() {
  return random_();
}

}  // namespace fencesim::real
