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

// Fires the fault right after the `occurrence`-th `event` at node `at_node` (the fault's own node
// when empty), plus delay.
struct Trigger {
  runtime::EventKind event;
  int occurrence = 1;
  std::int64_t delay_ns = 0;
  std::string at_node;

  friend bool operator==(const Trigger&, const Trigger&) = default;
};

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
