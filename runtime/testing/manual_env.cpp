#include "runtime/testing/manual_env.h"

#include <algorithm>
#include <boost/fiber/fiber.hpp>
#include <boost/fiber/operations.hpp>
#include <mutex>

#include "runtime/check.h"

namespace fencesim::runtime::testing {

ManualTime::~ManualTime() {
  shutdown();
}

void ManualTime::block_until(Nanoseconds wake_ns, const bool& stalled) {
  ++progress_;
  timers_.push_back(wake_ns);
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return shutting_down_ || (!stalled && now_ns_ >= wake_ns); });
  lock.unlock();
  timers_.erase(std::find(timers_.begin(), timers_.end(), wake_ns));
  ++progress_;
  if (shutting_down_) throw ManualEnvShutdown{};
}

void ManualTime::settle() {
  // Round-robin runs every ready fiber once per yield of the main fiber; when a few rounds pass
  // without any call into an environment, every fiber is blocked.
  int quiet_rounds = 0;
  while (quiet_rounds < 3) {
    const std::uint64_t before = progress_;
    changed_.notify_all();
    boost::this_fiber::yield();
    quiet_rounds = progress_ == before ? quiet_rounds + 1 : 0;
  }
}

void ManualTime::advance(Nanoseconds duration) {
  check(duration >= 0, "time only moves forward");
  const Nanoseconds target = now_ns_ + duration;
  settle();
  for (;;) {
    // Timers of stalled processes are overdue when they resume; stopping at them costs nothing.
    Nanoseconds next = target;
    for (Nanoseconds wake : timers_) {
      if (wake > now_ns_ && wake < next) next = wake;
    }
    now_ns_ = next;
    settle();
    if (now_ns_ >= target) return;
  }
}

void ManualTime::shutdown() {
  shutting_down_ = true;
  while (live_fibers_ > 0) {
    changed_.notify_all();
    boost::this_fiber::yield();
  }
}

ManualEnv::ManualEnv(ManualTime& time, std::uint64_t seed, Nanoseconds wall_offset_ns)
    : time_(time), wall_offset_ns_(wall_offset_ns), random_state_(seed) {}

void ManualEnv::sleep(Nanoseconds duration) {
  time_.block_until(time_.now_ns() + std::max<Nanoseconds>(duration, 0), stalled_);
}

void ManualEnv::yield() {
  if (stalled_ || time_.shutting_down_) {
    time_.block_until(time_.now_ns(), stalled_);
    return;
  }
  ++time_.progress_;
  boost::this_fiber::yield();
}

void ManualEnv::spawn(std::string name, std::function<void()> body) {
  ++time_.live_fibers_;
  ManualTime& time = time_;
  boost::fibers::fiber([&time, name = std::move(name), body = std::move(body)] {
    std::string error;
    try {
      body();
    } catch (const std::exception& e) {
      error = name + ": " + e.what();
    } catch (const ManualEnvShutdown&) {
    }
    if (!error.empty()) time.fiber_errors_.push_back(std::move(error));
    --time.live_fibers_;
    ++time.progress_;
  }).detach();
}

namespace {

// A notification that shutdown() can end, so that no fiber is left blocked on it.
class ManualNotification final : public Notification {
 public:
  explicit ManualNotification(ManualTime& time) : time_(time) {}
  void wait(const char* /*awaited*/) override { time_.wait_for_generation(generation_); }
  void notify_all() override {
    ++generation_;
    time_.notify();
  }

 private:
  ManualTime& time_;
  std::uint64_t generation_ = 0;
};

}  // namespace

void ManualTime::wait_for_generation(const std::uint64_t& generation) {
  ++progress_;
  const std::uint64_t seen = generation;
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return shutting_down_ || generation != seen; });
  lock.unlock();
  ++progress_;
  if (shutting_down_) throw ManualEnvShutdown{};
}

void ManualTime::notify() {
  ++progress_;
  changed_.notify_all();
}

std::unique_ptr<Notification> ManualEnv::make_notification() {
  return std::make_unique<ManualNotification>(time_);
}

std::uint64_t ManualEnv::random_u64() {
  // splitmix64: enough for ids and jitter in tests, and the same sequence for the same seed.
  std::uint64_t z = (random_state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void ManualEnv::resume() {
  stalled_ = false;
  time_.settle();
}

}  // namespace fencesim::runtime::testing
