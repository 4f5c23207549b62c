#pragma once
// Faults are typed data, not dice rolled in code: a plan is a list of faults, each firing at a
// virtual time or at a protocol trigger (the n-th occurrence of a runtime event at a node). A
// scenario writes its plan by hand or draws it from the seed's fault stream; a failing plan is
// shrunk by removing faults.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/observer.h"

namespace fencesim::sim {

enum class FaultKind : std::uint8_t {
  kStall,             // a GC pause inside the process: its fibers stop for duration
  kStop,              // SIGSTOP from outside; SIGCONT after duration
  kMigrate,           // paused for duration, then the wall clock steps by amount; messages wait
  kCrash,             // memory lost; restarted as a new incarnation after duration (0: never)
  kClockDrift,        // monotonic rate error of amount ppm from then on
  kClockStep,         // the wall clock steps by amount ns (forward or backward)
  kNetworkDelay,      // messages from and to the node take amount ns longer, for duration
  kNetworkDrop,       // messages from and to the node are lost with probability, for duration
  kNetworkDuplicate,  // requests to the node are delivered twice with probability, for duration
  kPartition,         // no message between node and peer, for duration
  kStoreSlow,         // the store answers amount ns late, for duration (a store node only)
  kStoreDown,         // the store answers nothing, for duration (a store node only)
};

std::string_view to_string(FaultKind kind);
// Inverse of to_string; nullopt for an unknown name.
std::optional<FaultKind> fault_kind_from_string(std::string_view name);

// Where a triggered fault is aimed: at its event, or at a deadline of the protocol that the event
// sets, which the world works out when the event comes (sim/world_aims.cpp) from the lease terms
// and the clocks it holds the nodes to, never from the runtime's own figures: a story written
// "the holder wakes 5 ms before its lease expires" stays true when the latency, the ttl or the
// drift changes.
enum class Aim : std::uint8_t {
  kEvent,         // the event itself
  kHolderExpiry,  // the holder's local expiry of the lease the event is about, on its own clock
                  // (its last granted take or renewal's send + ttl - drift margin); at a take or
                  // renewal sent, the expiry that request would give if granted
  kStoreExpiry,   // the store's expiry of that lease (its last grant or renewal + ttl, by the
                  // lease store's clock)
  kRpcTimeout,    // the moment the timeout of the next request the node sends elapses
  kInFlight,      // while the next message the node sends is on the wire (within_permille of
                  // the way from its departure to its arrival)
};
std::string_view to_string(Aim aim);
std::optional<Aim> aim_from_string(std::string_view name);

// Fires the fault right after the `occurrence`-th `event` at node `at_node` (the fault's own node
// when empty), plus delay; or, aimed, at the deadline `aim` plus delay (which may be negative: "1 s
// before the holder's expiry"). With `until` set, the fault lasts until that deadline plus
// until_delay_ns instead of its duration_ns.
struct Trigger {
  runtime::EventKind event;
  int occurrence = 1;
  std::int64_t delay_ns = 0;
  std::string at_node;
  Aim aim = Aim::kEvent;
  int within_permille = 500;  // kInFlight: 1..999
  Aim until = Aim::kEvent;    // kEvent: the fault lasts duration_ns
  std::int64_t until_delay_ns = 0;

  // Whether the world must work a deadline out for it (sim/world_aims.cpp).
  bool aimed() const { return aim != Aim::kEvent || until != Aim::kEvent; }

  friend bool operator==(const Trigger&, const Trigger&) = default;
};
// Whether the deadline is known only when the node's next message leaves (not at the event).
bool at_departure(Aim aim);

struct Fault {
  FaultKind kind;
  std::string node;        // the node's name
  std::string peer;        // kPartition only
  std::int64_t at_ns = 0;  // when, unless trigger is set
  std::optional<Trigger> trigger;
  std::int64_t duration_ns = 0;
  std::int64_t amount = 0;  // ns or ppm, by kind
  double probability = 0;   // kNetworkDrop, kNetworkDuplicate

  friend bool operator==(const Fault&, const Fault&) = default;
};

std::string describe(const Fault& fault);

struct FaultPlan {
  std::vector<Fault> faults;
  friend bool operator==(const FaultPlan&, const FaultPlan&) = default;
};

// Whether the plan stays inside the protocol's assumptions: clock drift within the bound, and no
// step of the wall clock of a node in `stores` (the lease store judges expiry by it). Runs outside
// are labelled, and their liveness and belief are not judged.
bool within_assumptions(const FaultPlan& plan, std::int64_t drift_bound_ppm,
                        const std::vector<std::string>& stores);

}  // namespace fencesim::sim
