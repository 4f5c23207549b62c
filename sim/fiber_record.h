#pragma once
// The scheduler's private bookkeeping for nodes and fibers. Internal to sim/: nodes, network and
// faults use the Scheduler's API, never these structs.
#include <cstdint>
#include <functional>
#include <string>

#include "sim/node_id.h"

namespace boost::fibers {
class context;
}

namespace fencesim::sim {

class Waiter;

struct NodeState {
  // Bumped by every kill: a fiber whose incarnation is older belongs to a crashed process.
  std::uint64_t incarnation = 0;
  bool paused = false;
};

enum class FiberState {
  kReady,     // in the ready queue (runnable, or held while its node is paused)
  kRunning,   // picked; also a fiber parked inside a Boost primitive we cannot see
  kSleeping,  // parked until a virtual time
  kBlocked,   // parked on a Waiter
};

// Virtual time plus a sequence number: the only order events of equal time ever take.
struct EventKey {
  std::int64_t time_ns = 0;
  std::uint64_t sequence = 0;
  friend auto operator<=>(const EventKey&, const EventKey&) = default;
};

struct FiberRecord {
  std::uint64_t sequence = 0;  // spawn order; fibers are ordered by this and nothing else
  std::string name;
  NodeId node = kWorldNode;
  NodeState* node_state = nullptr;  // stable: nodes live in a std::map
  std::uint64_t incarnation = 0;
  std::uint64_t priority = 0;  // PCT
  FiberState state = FiberState::kReady;
  boost::fibers::context* context = nullptr;
  Waiter* waiter = nullptr;  // set while blocked on a live Waiter
  EventKey sleep_key;        // valid while sleeping
  // While sleeping on its node's own monotonic clock (SimEnv::sleep): the reading it wakes at, so
  // that a change of the clock's rate during the sleep moves the wake (-1: a true-time sleep).
  std::int64_t local_wake_ns = -1;
  std::int64_t parked_since_ns = 0;
  std::function<void()> body;  // moved out when the fiber starts

  bool killed() const { return incarnation != node_state->incarnation; }
};

}  // namespace fencesim::sim
