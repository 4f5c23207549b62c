#pragma once
// What a holder does with a token once a store refused it or the holder reported its loss, and
// how it decides the failures that follow: judged from the holder's reports of what reached it
// (a refusal it received, its own loss) and what it sent and decided, never from its belief.
// Red-team rounds 7 and 8 (docs/mutants.md) planted bugs in the classes these judge: a refusal
// kept as if it were no loss, a decision made without the loss it followed.
#include <vector>

#include "properties/invariant.h"

namespace fencesim::properties {

// ExecutionLeaseRepository's contract (ADR-0023: the token is "written into
// ExecutionLeaseRepository's contract"): a renewal extends only a lease that is neither expired nor
// released, and "a late or stale renewal never extends, resurrects or steals a lease". A store's
// refusal of a renewal or of a checkpoint under token t is therefore the store's word that t is
// over, whatever its reason (stale, expired, released, not-holder; a checkpoint of a released or
// lower epoch): once it reached the holder, the holder starts no step and sends no write,
// checkpoint or unchecked call under t (calls already in flight may still land). A step also never
// starts under a token its holder reported lost or that a sink refused. stopped-holder judges the
// sends after a fenced refusal or a reported loss; this one judges the store's other refusals, and
// every step start.
class RefusalIsALoss final : public Invariant {
 public:
  std::string_view name() const override { return "refusal-is-a-loss"; }
  std::string_view statement() const override {
    return "once a store's refusal of a renewal or checkpoint under token t (any reason) reached "
           "its holder, or the holder decided a step of t fenced, the holder starts no step and "
           "sends no write, checkpoint or unchecked call under t; no step starts under a token "
           "lost or refused before";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

void check_refusal_is_a_loss(const std::vector<sim::HistoryEvent>& events,
                             std::vector<Violation>& out);

// ADR-0023: "A refusal is a hand-over error ... found anywhere in a cause chain or an
// AggregateError and checked before the signal's reason at every place the runtime decides about
// a failure"; and "a withdrawal made inside a pass has its step's" fence, so its failure is decided
// like its step's. Every failure a holder decides under token t after t was lost at it (its loss
// report, or a refusal of t that reached it) is a lease loss (execution.lease-lost...), never the
// body's own failure: a step's end, a pass's classification, a fenced withdrawal's end. A cancel
// learned before the loss may decide a withdrawal instead (its signal's reason). Where t's first
// loss was a fence (a sink's or the checkpoint store's refusal naming a later token, or the
// holder's own "fenced" loss) and no cancel came before it, a withdrawal ends
// execution.lease-lost.fenced: the refusal is the signal's reason then. (Steps and passes that met
// a fence are judged fenced by classification.)
class DecidedAsLoss final : public Invariant {
 public:
  std::string_view name() const override { return "decided-as-loss"; }
  std::string_view statement() const override {
    return "after token t was lost at its holder (a refusal of t reached it, or it reported the "
           "loss), every failure it decides under t (step end, pass classification, fenced "
           "withdrawal) is execution.lease-lost..., a withdrawal after a fence ...fenced";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

void check_decided_as_loss(const std::vector<sim::HistoryEvent>& events,
                           std::vector<Violation>& out);

// #360 as the runtime implements it (ExecutionCancelledError: a cancelled holder "ends the tree,
// finishing its placement, rather than giving it to another holder") with ADR-0023's yield: "The
// remote-children wait yields the lease" (gives it back; a yield is no loss). A pass is abandoned
// as a lease loss (kTreeAbandoned execution.lease-lost...) only if it lost a lease: its holder
// reported the loss (kLeaseLost) or was refused a take (the retake after a yield) during the pass.
// And a pass that learned of its tree's cancel (kCancelSeen) without losing a lease ends with the
// cancel: kTreeCancelled, or kTreeAbandoned execution.cancelled when the queue cannot be reached.
class PassEndsAsItWent final : public Invariant {
 public:
  std::string_view name() const override { return "pass-ends-as-it-went"; }
  std::string_view statement() const override {
    return "a pass is abandoned as a lease loss only if it lost a lease (reported loss, retake "
           "refused); a pass that saw its tree's cancel without losing its lease ends cancelled";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

void check_pass_ends_as_it_went(const std::vector<sim::HistoryEvent>& events,
                                std::vector<Violation>& out);

}  // namespace fencesim::properties
