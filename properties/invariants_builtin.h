#pragma once
// The built-in invariants, one class each; their statements use the ADR's words.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "properties/invariant.h"

namespace fencesim::properties {

class SinkMonotonicity final : public Invariant {
 public:
  std::string_view name() const override { return "sink-monotonicity"; }
  std::string_view statement() const override {
    return "per sink and scope key, once a write with token t is accepted, no write with a lower "
           "token is accepted";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

class ExactlyOnce final : public Invariant {
 public:
  std::string_view name() const override { return "exactly-once"; }
  std::string_view statement() const override {
    return "every effect a sink applied is one the workload intended (its own effect identity, "
           "sink, payload and token), applied at most once; once its tree completed, exactly once "
           "for every committed step run's intent, and every effect the workflow declares was "
           "intended at as many distinct steps as declare it";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

class PerKeyEpochs final : public Invariant {
 public:
  std::string_view name() const override { return "per-key-epochs"; }
  std::string_view statement() const override {
    return "takes of a key are granted tokens 1, 2, 3, ... with no gap or reuse, one holder per "
           "(key, token)";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

class ConditionalRenewal final : public Invariant {
 public:
  std::string_view name() const override { return "conditional-renewal"; }
  std::string_view statement() const override {
    return "a late or stale renew never extends or steals another holder's lease: the store renews "
           "only a live, unreleased lease for its holder at the key's epoch, and a lost lease "
           "never "
           "comes back to its holder";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

class ConservativeBelief final : public Invariant {
 public:
  std::string_view name() const override { return "conservative-belief"; }
  std::string_view statement() const override {
    return "confirmedUntil, in true time, is never later than the store's expiry of that lease, "
           "for drift within the bound";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

class StaleStepNeverSucceeds final : public Invariant {
 public:
  std::string_view name() const override { return "stale-step-never-succeeds"; }
  std::string_view statement() const override {
    return "a step whose lease was lost before its outcome committed never ends ok: it ends with "
           "ExecutionLeaseLostError, even with its write in flight at expiry";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

class StoppedHolder final : public Invariant {
 public:
  std::string_view name() const override { return "stopped-holder"; }
  std::string_view statement() const override {
    return "after a fenced refusal for token t (or any other loss of t), that instance sends no "
           "further write, checkpoint or confirmation with t";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

class Classification final : public Invariant {
 public:
  std::string_view name() const override { return "classification"; }
  std::string_view statement() const override {
    return "a fenced error anywhere in causes or aggregates gives execution.lease-lost.fenced, "
           "whatever the abort reason";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

class FenceScoping final : public Invariant {
 public:
  std::string_view name() const override { return "fence-scoping"; }
  std::string_view statement() const override {
    return "the fence is a fact of its step's frame: no write or confirmation leaves under a step "
           "that is not running, so a fence kept past its step refuses";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

class NoFalseFencing final : public Invariant {
 public:
  std::string_view name() const override { return "no-false-fencing"; }
  std::string_view statement() const override {
    return "a healthy holder is never refused: a sink or the checkpoint store refuses token t of a "
           "scope key only after a higher token was granted for its lease key; AnyInstance "
           "siblings never refuse each other";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

class FencedCheckpoint final : public Invariant {
 public:
  std::string_view name() const override { return "fenced-checkpoint"; }
  std::string_view statement() const override {
    return "the checkpoint store commits a write only under its key's current epoch: the "
           "framework fences its own checkpoint writes";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

class FenceRefusesOutsideItsStep final : public Invariant {
 public:
  std::string_view name() const override { return "fence-refuses-outside-its-step"; }
  std::string_view statement() const override {
    return "a fence kept past its step, an ancestor's fence and a frame without a held lease "
           "refuse with ExecutionContextUnavailableError (as the workload that tried saw it)";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

class SafeYield final : public Invariant {
 public:
  std::string_view name() const override { return "safe-yield"; }
  std::string_view statement() const override {
    return "a holder releases a tree's lease only while no lane of the tree is busy (no step runs, "
           "no checkpoint is in flight), and does no work for the tree (no step starts, no "
           "checkpoint is sent) until it takes the lease again";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

class StrictConfirm final : public Invariant {
 public:
  std::string_view name() const override { return "strict-confirm"; }
  std::string_view statement() const override {
    return "confirmNow() is a strict renewal: every confirm that returned to its step body was "
           "answered by a renewal of its token that the lease store granted, sent by its holder "
           "after the confirm began";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

class ScopeKeyInjective final : public Invariant {
 public:
  std::string_view name() const override { return "scope-key-injective"; }
  std::string_view statement() const override {
    return "a scope key is its parts encoded by JavaScript's encodeURIComponent (the oracle's own "
           "reference, held to a table node made) joined by one ':': every event's scope key is "
           "its lease key's, every scope key is well formed, no two lease keys or trees share one";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

class ReferenceModel final : public Invariant {
 public:
  std::string_view name() const override { return "reference-model"; }
  std::string_view statement() const override {
    return "every request a lease store or sink handled got the verdict that an independent model "
           "of the store-side rules (per-key epochs, expiry, conditional renew and release, "
           "checkpoints by epoch, token-checking idempotent sinks), fed the same requests in "
           "order, gives";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

class ExpiredWriteNeverSucceeds final : public Invariant {
 public:
  std::string_view name() const override { return "expired-write-never-succeeds"; }
  std::string_view statement() const override {
    return "a write whose lease expired locally before its reply (the holder's own clock past the "
           "confirmedUntil the store's grants gave it: send time + ttl - drift margin) never "
           "returns success to its step body";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

class ActsWithinBelief final : public Invariant {
 public:
  std::string_view name() const override { return "acts-within-belief"; }
  std::string_view statement() const override {
    return "a holder sends a fenced write, a checkpoint or an unchecked call, and starts a step, "
           "only before the local expiry the store's grants give its token (the send time of the "
           "last take or renewal granted + ttl - the drift margin, on its own clock)";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

class OwnWorkflow final : public Invariant {
 public:
  std::string_view name() const override { return "own-workflow"; }
  std::string_view statement() const override {
    return "every tree runs the workflow it was placed with, on a lease key of its own: no key is "
           "placed as two trees (a root and a child, two children); every step checkpointed under "
           "a key is a step of its tree's workflow; a tree completes only with all of its steps "
           "checkpointed, and a parent only after each of its AnyInstance children, one key each";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

// What the clock-based checkers may assume about a run beyond its history: the lease's ttl, whether
// the run stayed within the protocol's assumptions, and how each node's monotonic clock ran.
struct DriftChange {
  std::int64_t at_ns = 0;      // true time from which the rate holds
  std::int64_t drift_ppm = 0;  // the clock runs at 1 + drift_ppm / 1e6 of true time
};

struct RunFacts {
  runtime::Nanoseconds ttl_ns = 30 * runtime::kSecond;
  // Drift within the bound and no step of the lease store's wall clock: the ADR's safety argument
  // assumes both, so the invariants that compare clocks judge only such runs.
  bool within_assumptions = true;
  // Per node, the rate changes of its monotonic clock in true-time order; a node not listed ran at
  // the true rate.
  std::map<sim::NodeId, std::vector<DriftChange>> drift;
};

// The facts of a finished run: the rate changes are read from the history's applied drift faults.
RunFacts run_facts(const sim::World& world);

// The first true time at which `node`'s monotonic clock reads `target_monotonic_ns`, given that it
// read `monotonic_ns` at true time `time_ns`. Exact (to a nanosecond) for the rates in `facts`.
std::int64_t true_time_when(const RunFacts& facts, sim::NodeId node, std::int64_t time_ns,
                            runtime::Nanoseconds monotonic_ns,
                            runtime::Nanoseconds target_monotonic_ns);

// The checkers' cores, over a history and the facts they need, so that tests can feed them
// hand-made histories. Each appends what it finds to `out`.
using Events = std::vector<sim::HistoryEvent>;
void check_conditional_renewal(const Events& events, runtime::Nanoseconds ttl_ns,
                               std::vector<Violation>& out);
void check_conservative_belief(const Events& events, const RunFacts& facts,
                               std::vector<Violation>& out);
void check_stale_step_never_succeeds(const Events& events, std::vector<Violation>& out);
void check_stopped_holder(const Events& events, std::vector<Violation>& out);
void check_classification(const Events& events, std::vector<Violation>& out);
void check_fence_scoping(const Events& events, std::vector<Violation>& out);
void check_no_false_fencing(const Events& events, std::vector<Violation>& out);
void check_safe_yield(const Events& events, std::vector<Violation>& out);
void check_fenced_checkpoint(const Events& events, std::vector<Violation>& out);
void check_fence_refuses_outside_its_step(const Events& events, std::vector<Violation>& out);
void check_scope_key_injective(const Events& events, std::vector<Violation>& out);
void check_strict_confirm(const Events& events, std::vector<Violation>& out);
void check_reference_model(const Events& events, std::vector<Violation>& out);

// The holder's side of the lease policy, as the oracle computes local expiry from it.
struct LocalExpiryPolicy {
  std::int64_t drift_bound_ppm = 1000;
  runtime::Nanoseconds drift_margin_min_ns = 10 * runtime::kMillisecond;
};
// The policy a world's lease terms give: the harness's terms (sim/lease_terms.h), never the
// runtime's LeasePolicy, whose defaults are code under test. The one reading of them every
// oracle and mark rule that recomputes a local expiry shares.
inline LocalExpiryPolicy expiry_policy_of(const sim::LeaseTerms& lease) {
  return LocalExpiryPolicy{lease.drift_bound_ppm, lease.drift_margin_min_ns};
}
void check_expired_write_never_succeeds(const Events& events, const LocalExpiryPolicy& policy,
                                        std::vector<Violation>& out);
void check_acts_within_belief(const Events& events, const LocalExpiryPolicy& policy,
                              std::vector<Violation>& out);

// The effects a workflow declares (scenarios::DeclaredStep), by (sink, effect), counted over its
// steps and its inline children's; looked up by workflow name.
using DeclaredEffects = std::map<std::pair<std::string, std::string>, int>;
using DeclaredLookup = std::function<const DeclaredEffects&(const std::string& workflow)>;
DeclaredLookup declared_effects_of(const runtime::WorkflowRegistry& registry);
void check_exactly_once(const Events& events, const DeclaredLookup& declared,
                        std::vector<Violation>& out);

// A workflow's shape as the own-workflow oracle reads it from the workload's definitions: the name
// path (group, child, ..., step) of every step under the tree's own lease (inline children's
// included), and how many AnyInstance children it places (inline levels' included).
struct WorkflowShape {
  std::vector<std::vector<std::string>> steps;
  int any_instance_children = 0;
};
// The shape of a workflow by name, or null for one the registry does not hold.
using ShapeLookup = std::function<const WorkflowShape*(const std::string& workflow)>;
ShapeLookup workflow_shapes_of(const runtime::WorkflowRegistry& registry);
void check_own_workflow(const Events& events, const ShapeLookup& shape,
                        std::vector<Violation>& out);

}  // namespace fencesim::properties
