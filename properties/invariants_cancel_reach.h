#pragma once
// What a cancel (#360) does to a pass that is running, judged from the history: the store's record
// of the cancel (kStoreCall, op cancel, outcome recorded), what watchful step bodies saw of their
// abort signal (the workload's kObserved "signal" records, scenarios/watchful_step.h) and the
// holder's reports of what it did, never from what the runtime believes about the cancel.
#include <cstdint>

#include "properties/invariant.h"

namespace fencesim::properties {

// Issue 9, item 11 (#360, which confirmNow()'s cancel checks of ADR-0023 are part of): a cancel
// that reaches the holder aborts its steps' signal with a cancel reason. After a holder reported
// that it learned of its tree's cancel (kCancelSeen), a step of that tree running at it that looks
// at its signal finds it aborted, whichever lease the step runs under (the pass's first one, or
// the one it took back after a remote-children wait).
class CancelAbortsSteps final : public Invariant {
 public:
  std::string_view name() const override { return "cancel-aborts-steps"; }
  std::string_view statement() const override {
    return "once a holder learned of its tree's cancel, every step of the tree running at that "
           "holder finds its abort signal aborted when it looks";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

void check_cancel_aborts_steps(const std::vector<sim::HistoryEvent>& events,
                               std::vector<Violation>& out);

// Issue 9, item 11: a client's cancel reaches the holder. A cancel nobody learns of while the pass
// goes on (its steps, its remote-children wait with the lease yielded) is no cancel; the bound is
// checked where nothing faulty goes on, the quiet phase: every pass over a tree whose cancel was
// recorded, live at max(recording, quiet start) + `bound_ns`, has learned of it by then
// (kCancelSeen) or ended. A pass reads the cancel when it starts, at every step start, in every
// confirm and once every renewal interval besides; the bound is one renewal interval and one RPC
// timeout (a read in flight when the faults ended may time out first) plus one second.
class CancelSeenInTime final : public Invariant {
 public:
  std::string_view name() const override { return "cancel-seen-in-time"; }
  std::string_view statement() const override {
    return "in the quiet phase, a pass over a tree whose cancel was recorded learns of it within "
           "one renewal interval and one RPC timeout (plus 1 s), or ends, also while its lease is "
           "yielded for a remote-children wait";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

void check_cancel_seen_in_time(const std::vector<sim::HistoryEvent>& events, std::int64_t bound_ns,
                               std::vector<Violation>& out);

}  // namespace fencesim::properties
