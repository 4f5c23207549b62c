#pragma once
// What the runtime reports about itself. The runtime emits typed events at every protocol moment;
// a world records them into its history, invariant checkers read that history, and fault triggers
// fire on them ("pause this node right after its renewal was sent"). Emitting never blocks.
#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/types.h"

namespace fencesim::runtime {

enum class EventKind : std::uint8_t {
  // Instance side: what a holder did and believed.
  kTakeSent,           // holder asked the store for a lease
  kLeaseTaken,         // token = the new epoch; value = confirmedUntil (holder's monotonic ns)
  kTakeRefused,        // token = the current holder's epoch
  kRenewSent,          // token = the held token
  kLeaseRenewed,       // value = new confirmedUntil (holder's monotonic ns)
  kRenewRefused,       // detail = why (stale, expired, released)
  kLeaseLost,          // detail = why (local-expiry, refused, fenced, store); the holder stops
  kLeaseReleased,      // the holder yielded or finished
  kStepStarted,        // step = step path
  kStepEnded,          // detail = outcome code ("ok" or an error code)
  kWriteSent,          // a fenced write to a sink left the holder; detail = idempotency key
  kWriteAccepted,      // detail = "applied" or "deduplicated"
  kWriteRefused,       // value = the sink's high-water token that refused it
  kUncheckedCallSent,  // a call to a system that cannot check tokens (after confirmNow)
  kCheckpointSent,
  kCheckpointCommitted,
  kCheckpointRefused,
  kConfirmSent,      // confirmNow() began its strict renewal
  kErrorClassified,  // detail = the decided code
  kTreeStarted,      // a holder began a pass over a tree (resuming from its checkpoint)
  kTreeCompleted,    // a holder committed the tree's completion
  kTreeAbandoned,    // a holder stopped a pass (lease lost, fenced)
  kChildPlaced,      // an AnyInstance child was placed on the queue; detail = child scope key
  kRemoteWaitBegan,  // value = 1 if the root's lease was yielded for the wait, else 0
  kRemoteWaitEnded,
  kWithdrawal,  // detail = "fenced" (inside a pass) or "unfenced" (after the tree ended);
                // its outcome is reported by kWithdrawalEnded
  // Store side: the truth.
  kStoreLeaseGranted,  // token = new epoch; value = expiry (store's wall ns)
  kStoreLeaseRenewed,  // holder, token = the requester's; value = new expiry (store's wall ns)
  kStoreRenewRefused,
  kStoreLeaseReleased,
  kSinkApplied,  // scope_key, token, detail = idempotency key
  kSinkDeduplicated,
  kSinkRefused,  // value = high-water token
  kStoreCheckpointCommitted,
  kStoreCheckpointRefused,
  // Instance side, added by issue 9 (kept at the end so earlier kinds keep their values).
  kWithdrawalRefused,  // a withdrawal found neither its running step here nor an ended tree;
                       // step = the step path named; detail = why (tree live, store unreachable)
  kWithdrawalEnded,    // a withdrawal's body returned or failed, or it was refused; detail = "ok"
                       // or the code decide_failure gave (a withdrawal's classification; never
                       // reported as kErrorClassified, which is a pass's); token = the step's
                       // token if it ran fenced, else 0
  kCancelSeen,         // the holder learned that its tree's cancel was requested; the step
                       // signals of the pass are aborted with ExecutionCancelledError
  kTreeCancelled,      // a holder ended a cancelled tree: its placement is finished, the tree
                       // will never complete; detail = "execution.cancelled"
};

// The last kind: kinds are numbered 0..kLastEventKind without gaps (for loops over every kind).
inline constexpr EventKind kLastEventKind = EventKind::kTreeCancelled;

std::string_view to_string(EventKind kind);

// One flat record: cheap to copy, hash and print. Fields a kind does not use stay empty or zero.
struct RuntimeEvent {
  EventKind kind;
  std::string holder;  // the instance (holder id) or the store or sink name
  LeaseKey key;
  std::string scope_key;
  Token token = kTokenNone;
  std::string step;  // step path within the tree
  std::string detail;
  std::int64_t value = 0;
};

class Observer {
 public:
  virtual ~Observer() = default;
  virtual void on_event(const RuntimeEvent& event) = 0;
};

// An observer that drops everything, for callers that do not record.
class NullObserver final : public Observer {
 public:
  void on_event(const RuntimeEvent&) override {}
};

}  // namespace fencesim::runtime
