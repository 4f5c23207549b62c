#include "runtime/observer.h"

namespace fencesim::runtime {

std::string_view to_string(EventKind kind) {
  switch (kind) {
    case EventKind::kTakeSent:
      return "take-sent";
    case EventKind::kLeaseTaken:
      return "lease-taken";
    case EventKind::kTakeRefused:
      return "take-refused";
    case EventKind::kRenewSent:
      return "renew-sent";
    case EventKind::kLeaseRenewed:
      return "lease-renewed";
    case EventKind::kRenewRefused:
      return "renew-refused";
    case EventKind::kLeaseLost:
      return "lease-lost";
    case EventKind::kLeaseReleased:
      return "lease-released";
    case EventKind::kStepStarted:
      return "step-started";
    case EventKind::kStepEnded:
      return "step-ended";
    case EventKind::kWriteSent:
      return "write-sent";
    case EventKind::kWriteAccepted:
      return "write-accepted";
    case EventKind::kWriteRefused:
      return "write-refused";
    case EventKind::kUncheckedCallSent:
      return "unchecked-call-sent";
    case EventKind::kCheckpointSent:
      return "checkpoint-sent";
    case EventKind::kCheckpointCommitted:
      return "checkpoint-committed";
    case EventKind::kCheckpointRefused:
      return "checkpoint-refused";
    case EventKind::kConfirmSent:
      return "confirm-sent";
    case EventKind::kErrorClassified:
      return "error-classified";
    case EventKind::kTreeStarted:
      return "tree-started";
    case EventKind::kTreeCompleted:
      return "tree-completed";
    case EventKind::kTreeAbandoned:
      return "tree-abandoned";
    case EventKind::kChildPlaced:
      return "child-placed";
    case EventKind::kRemoteWaitBegan:
      return "remote-wait-began";
    case EventKind::kRemoteWaitEnded:
      return "remote-wait-ended";
    case EventKind::kWithdrawal:
      return "withdrawal";
    case EventKind::kStoreLeaseGranted:
      return "store-lease-granted";
    case EventKind::kStoreLeaseRenewed:
      return "store-lease-renewed";
    case EventKind::kStoreRenewRefused:
      return "store-renew-refused";
    case EventKind::kStoreLeaseReleased:
      return "store-lease-released";
    case EventKind::kSinkApplied:
      return "sink-applied";
    case EventKind::kSinkDeduplicated:
      return "sink-deduplicated";
    case EventKind::kSinkRefused:
      return "sink-refused";
    case EventKind::kStoreCheckpointCommitted:
      return "store-checkpoint-committed";
    case EventKind::kStoreCheckpointRefused:
      return "store-checkpoint-refused";
    case EventKind::kWithdrawalRefused:
      return "withdrawal-refused";
    case EventKind::kWithdrawalEnded:
      return "withdrawal-ended";
    case EventKind::kCancelSeen:
      return "cancel-seen";
    case EventKind::kTreeCancelled:
      return "tree-cancelled";
  }
  return "unknown";
}

}  // namespace fencesim::runtime
