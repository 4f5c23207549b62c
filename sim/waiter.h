#pragma once
// The blocking primitive everything else is built on (rpc replies, condition waits): a slot one
// fiber blocks on until someone wakes it. See Scheduler::block and Scheduler::wake.
#include <string_view>

namespace fencesim::sim {

struct FiberRecord;

class Waiter {
 public:
  Waiter() = default;
  // `awaits`: what a fiber blocked here waits for, in fixed words ("'take reply' from node 2",
  // "branches to end"): named by the deadlock report and a liveness failure's signature. The
  // text must outlive the slot (a literal, or a string of the slot's owner).
  explicit Waiter(std::string_view awaits) : awaits_(awaits) {}
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
  std::string_view awaits() const { return awaits_; }
  void set_awaits(std::string_view awaits) { awaits_ = awaits; }

 private:
  friend class Scheduler;

  FiberRecord* fiber_ = nullptr;
  bool signaled_ = false;
  std::string_view awaits_;
};

}  // namespace fencesim::sim
