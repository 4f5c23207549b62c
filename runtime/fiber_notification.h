#pragma once
// Notification on Boost.Fiber's untimed mutex and condition variable: deterministic under a
// deterministic scheduler (only Boost's timed waits read the real clock), so both the real
// environment and the test environment use it.
#include <boost/fiber/condition_variable.hpp>
#include <boost/fiber/mutex.hpp>
#include <cstdint>
#include <mutex>

#include "runtime/env.h"

namespace fencesim::runtime {

class FiberNotification final : public Notification {
 public:
  void wait(const char* /*awaited*/) override {
    std::unique_lock lock(mutex_);
    const std::uint64_t seen = generation_;
    condition_.wait(lock, [&] { return generation_ != seen; });
  }
  void notify_all() override {
    {
      std::unique_lock lock(mutex_);
      ++generation_;
    }
    condition_.notify_all();
  }

 private:
  boost::fibers::mutex mutex_;
  boost::fibers::condition_variable condition_;
  std::uint64_t generation_ = 0;
};

}  // namespace fencesim::runtime
