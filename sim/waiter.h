#pragma once
// The blocking primitive everything else is built on (rpc replies, condition waits): a slot one
// fiber blocks on until someone wakes it. See Scheduler::block and Scheduler::wake.
namespace fencesim::sim {

struct FiberRecord;

class Waiter {
 public:
  Waiter() = default;
  // A fiber still blocked here stays blocked (and shows up in the deadlock report).
  ~Waiter();
  Waiter(const Waiter&) = delete;
  Waiter& operator=(const Waiter&) = delete;

  // A fiber is blocked on this slot.
  bool waiting() const { return fiber_ != nullptr; }
  // A wake arrived while no fiber was blocked; the next block() consumes it and returns at once.
  bool signaled() const { return signaled_; }
  // Forgets a pending wake, e.g. before reusing the slot for another request.
  void reset() { signaled_ = false; }

 private:
  friend class Scheduler;

  FiberRecord* fiber_ = nullptr;
  bool signaled_ = false;
};

}  // namespace fencesim::sim
