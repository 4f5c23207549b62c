#include "sim/sim_env.h"

#include <algorithm>
#include <vector>

namespace fencesim::sim {

namespace {

// Waiters of a notification; each waiting fiber parks on its own Waiter.
class SimNotification final : public runtime::Notification {
 public:
  explicit SimNotification(Scheduler& scheduler) : scheduler_(scheduler) {}
  void wait(const char* awaited) override {
    Waiter waiter(awaited);
    waiting_.push_back(&waiter);
    // Removes the waiter whether the wait returns or unwinds (a killed node).
    struct Leave {
      std::vector<Waiter*>& list;
      Waiter* self;
      ~Leave() { std::erase(list, self); }
    } leave{waiting_, &waiter};
    scheduler_.block(waiter);
  }
  void notify_all() override {
    std::vector<Waiter*> woken;
    woken.swap(waiting_);
    for (Waiter* waiter : woken) scheduler_.wake(*waiter);
    // The list's storage back to the waiting list (a lease notifies at every renewal and every
    // change): no allocation at the next wait. Only if nobody began waiting meanwhile.
    woken.clear();
    if (waiting_.empty()) waiting_.swap(woken);
  }

 private:
  Scheduler& scheduler_;
  std::vector<Waiter*> waiting_;
};

}  // namespace

void SimEnv::sleep(runtime::Nanoseconds duration) {
  // The node measures the duration on its own (drifting) monotonic clock.
  // A change of the clock's rate during the sleep moves the wake (Scheduler::retime_local_sleeps):
  // the sleep ends when the node's own clock reads local_wake, as an OS's monotonic sleep does.
  const runtime::Nanoseconds local_wake =
      monotonic_ns() + std::max<runtime::Nanoseconds>(duration, 0);
  scheduler_.sleep_until_local(clock_.true_time_when(local_wake), local_wake);
}

std::unique_ptr<runtime::Notification> SimEnv::make_notification() {
  return std::make_unique<SimNotification>(scheduler_);
}

}  // namespace fencesim::sim
