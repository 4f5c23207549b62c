#pragma once
// Oracles over what step bodies and withdrawals saw of their fence (the workload's own kObserved
// records, scenarios/workload.h), judged against the stores' records and the ADR, never against
// the runtime's beliefs or classes (issue 9, sections 2 and 4):
// - fence-after-loss: after its lease was lost, a fence reports no future confirmedUntil and its
//   assertHeld() throws;
// - error-code-families: every error code a step body, a catch site or a runtime event shows
//   follows the ADR's hierarchy (a subclass's code extends its parent's);
// - call-ends-at-abort: a fenced write's call ends at its lease's abort, not at its reply;
// - withdrawal-frame: a withdrawal runs unfenced only after the stores recorded its tree's end
//   (its completion, or its cancelled pass's finish), and fenced only in the frame of the step it
//   named.
#include <cstdint>

#include "properties/invariants_builtin.h"

namespace fencesim::properties {

class FenceAfterLoss final : public Invariant {
 public:
  std::string_view name() const override { return "fence-after-loss"; }
  std::string_view statement() const override {
    return "after its lease was lost (the store granted a later token, the holder's clock passed "
           "the local expiry the store's grants give it, or the holder reported the loss), a "
           "fence read by its step body reports no future confirmedUntil and its assertHeld() "
           "throws; and always, assertHeld() returns only while confirmedUntil has not passed, "
           "and confirmedUntil is never later than the local expiry the store's grants give";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

class ErrorCodeFamilies final : public Invariant {
 public:
  std::string_view name() const override { return "error-code-families"; }
  std::string_view statement() const override {
    return "every error code a step body or catch site saw, and every outcome code the runtime "
           "reports, is in the ADR's hierarchy: 'execution' and its dotted extensions, a "
           "subclass's code extending its parent's (execution.lease-lost.fenced under "
           "execution.lease-lost)";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

class CallEndsAtAbort final : public Invariant {
 public:
  std::string_view name() const override { return "call-ends-at-abort"; }
  std::string_view statement() const override {
    return "a fenced write's call returns to its body at its lease's abort: within 100 ms of the "
           "holder's running time after the lease's local expiry (from the store's grants) or "
           "the holder's own loss, never at a reply or RPC timeout that comes later";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

class WithdrawalFrame final : public Invariant {
 public:
  std::string_view name() const override { return "withdrawal-frame"; }
  std::string_view statement() const override {
    return "a withdrawal runs without a fence only after the stores recorded its tree's end (its "
           "completion, or its cancelled pass's finish), and with a fence only in the frame of "
           "the step it named";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

// The checkers' cores, for hand-made histories.
// `within_assumptions`: a later token granted by the store counts as a loss only in runs whose
// clocks stayed within the ADR's assumptions (otherwise the holder cannot know of it).
void check_fence_after_loss(const Events& events, const LocalExpiryPolicy& policy,
                            bool within_assumptions, std::vector<Violation>& out);
void check_error_code_families(const Events& events, std::vector<Violation>& out);
// `max_ns`: the holder's running time allowed between the abort and the return; a real process
// (real/) is allowed its OS's wake-up latency as well, like the lease timers.
inline constexpr std::int64_t kCallAfterAbortMaxNs = 100'000'000;  // 100 ms
void check_call_ends_at_abort(const Events& events, const LocalExpiryPolicy& policy,
                              const RunFacts& facts, std::vector<Violation>& out,
                              std::int64_t max_ns = kCallAfterAbortMaxNs);
void check_withdrawal_frame(const Events& events, std::vector<Violation>& out);

}  // namespace fencesim::properties
