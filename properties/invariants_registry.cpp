// The invariants every run is checked against, in the order their violations are reported.
#include "properties/invariants_after_loss.h"
#include "properties/invariants_belief_reported.h"
#include "properties/invariants_builtin.h"
#include "properties/invariants_cancel.h"
#include "properties/invariants_cancel_end.h"
#include "properties/invariants_cancel_reach.h"
#include "properties/invariants_cancel_seen_once.h"
#include "properties/invariants_commit_token.h"
#include "properties/invariants_confirm_cancel.h"
#include "properties/invariants_confirm_cancel_after.h"
#include "properties/invariants_confirm_within_step.h"
#include "properties/invariants_ended_tree.h"
#include "properties/invariants_fence_use.h"
#include "properties/invariants_group_join.h"
#include "properties/invariants_hand_over.h"
#include "properties/invariants_lease_given_back.h"
#include "properties/invariants_lease_terms.h"
#include "properties/invariants_lease_timers.h"
#include "properties/invariants_loss_cause.h"
#include "properties/invariants_lost_only_when_lost.h"
#include "properties/invariants_reported_as_recorded.h"
#include "properties/invariants_sibling_names.h"
#include "properties/invariants_signal_reason.h"
#include "properties/invariants_stale_ends.h"
#include "properties/invariants_stale_step_ends_lost.h"
#include "properties/invariants_store_reported.h"
#include "properties/invariants_wait_ends_held.h"
#include "properties/invariants_withdrawal_return.h"
#include "properties/invariants_write_verdict.h"
#include "properties/invariants_yield_retake.h"

namespace fencesim::properties {

std::vector<std::unique_ptr<Invariant>> default_invariants() {
  std::vector<std::unique_ptr<Invariant>> out;
  out.push_back(std::make_unique<SinkMonotonicity>());
  out.push_back(std::make_unique<ExactlyOnce>());
  out.push_back(std::make_unique<PerKeyEpochs>());
  out.push_back(std::make_unique<ConditionalRenewal>());
  out.push_back(std::make_unique<ConservativeBelief>());
  out.push_back(std::make_unique<StaleStepNeverSucceeds>());
  out.push_back(std::make_unique<StoppedHolder>());
  out.push_back(std::make_unique<Classification>());
  out.push_back(std::make_unique<FenceScoping>());
  out.push_back(std::make_unique<NoFalseFencing>());
  out.push_back(std::make_unique<FencedCheckpoint>());
  out.push_back(std::make_unique<FenceRefusesOutsideItsStep>());
  out.push_back(std::make_unique<SafeYield>());
  out.push_back(std::make_unique<StrictConfirm>());
  out.push_back(std::make_unique<ScopeKeyInjective>());
  out.push_back(std::make_unique<ReferenceModel>());
  out.push_back(std::make_unique<ExpiredWriteNeverSucceeds>());
  out.push_back(std::make_unique<ActsWithinBelief>());
  out.push_back(std::make_unique<RenewalCadence>());
  out.push_back(std::make_unique<TimelyLoss>());
  out.push_back(std::make_unique<OwnWorkflow>());
  out.push_back(std::make_unique<GroupJoin>());
  out.push_back(std::make_unique<CancelIsFinal>());
  out.push_back(std::make_unique<WriteVerdict>());
  out.push_back(std::make_unique<FenceAfterLoss>());
  out.push_back(std::make_unique<ErrorCodeFamilies>());
  out.push_back(std::make_unique<CallEndsAtAbort>());
  out.push_back(std::make_unique<WithdrawalFrame>());
  out.push_back(std::make_unique<RefusalHandsOver>());
  out.push_back(std::make_unique<ConfirmReadsCancel>());
  out.push_back(std::make_unique<CancelAbortsSteps>());
  out.push_back(std::make_unique<CancelSeenInTime>());
  out.push_back(std::make_unique<RefusalIsALoss>());
  out.push_back(std::make_unique<DecidedAsLoss>());
  out.push_back(std::make_unique<PassEndsAsItWent>());
  out.push_back(std::make_unique<ReportedAsRecorded>());
  out.push_back(std::make_unique<LeaseTermsKept>());
  out.push_back(std::make_unique<LostOnlyWhenLost>());
  out.push_back(std::make_unique<StaleStepEndsLost>());
  out.push_back(std::make_unique<EndedTreeNotLive>());
  out.push_back(std::make_unique<ConfirmWithinStep>());
  out.push_back(std::make_unique<SiblingsNamedApart>());
  out.push_back(std::make_unique<CancelEndsNoLaterStep>());
  out.push_back(std::make_unique<ConfirmCancelHidesNoLoss>());
  out.push_back(std::make_unique<StaleWithdrawalEndsLost>());
  out.push_back(std::make_unique<YieldLostOnlyToATaker>());
  out.push_back(std::make_unique<StepCommitsUnderItsToken>());
  out.push_back(std::make_unique<ConfirmCancelAfterRenewal>());
  out.push_back(std::make_unique<BeliefReportedAsRead>());
  out.push_back(std::make_unique<StoreReportedAsReplied>());
  out.push_back(std::make_unique<RemoteWaitEndsHeld>());
  out.push_back(std::make_unique<LossAfterItsCause>());
  out.push_back(std::make_unique<CancelSeenOncePerPass>());
  out.push_back(std::make_unique<ReturnedWithdrawalNotLost>());
  out.push_back(std::make_unique<SignalReasonKept>());
  out.push_back(std::make_unique<EndedPassGivesBackItsLease>());
  // Liveness (every tree completes, or ends cancelled, in the quiet phase, its placement
  // finished) is judged by the run's outcome, and replay (same seed, same history hash) by running
  // twice: neither is a checker over one history.
  return out;
}

}  // namespace fencesim::properties
