#include "runtime/real/real_env.h"

#include <fmt/format.h>

#include <boost/fiber/all.hpp>
#include <chrono>
#include <cstdio>

#include "runtime/fiber_notification.h"

namespace fencesim::runtime::real {

RealEnv::RealEnv() : random_(std::random_device{}()) {}

Nanoseconds RealEnv::monotonic_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Nanoseconds RealEnv::wall_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void RealEnv::stop_while_frozen() {
  while (monotonic_ns() < frozen_until_ns_) {
    boost::this_fiber::sleep_for(std::chrono::nanoseconds(frozen_until_ns_ - monotonic_ns()));
  }
}

void RealEnv::sleep(Nanoseconds duration) {
  stop_while_frozen();
  if (duration > 0) boost::this_fiber::sleep_for(std::chrono::nanoseconds(duration));
  stop_while_frozen();
}

void RealEnv::yield() {
  stop_while_frozen();
  boost::this_fiber::yield();
  stop_while_frozen();
}

void RealEnv::spawn(std::string name, std::function<void()> body) {
  ++live_fibers_;
  boost::fibers::fiber([this, name = std::move(name), body = std::move(body)] {
    try {
      stop_while_frozen();
      body();
    } catch (const std::exception& error) {
      std::fprintf(stderr, "fiber '%s' ended by an exception: %s\n", name.c_str(), error.what());
    }
    --live_fibers_;
  }).detach();
}

std::unique_ptr<Notification> RealEnv::make_notification() {
  return std::make_unique<FiberNotification>();
}

std::uint64_t RealEnv::random_u64() {
  return random_();
}

void RealEnv::freeze_for(Nanoseconds duration) {
  frozen_until_ns_ = std::max(frozen_until_ns_, monotonic_ns() + duration);
}

}  // namespace fencesim::runtime::real
