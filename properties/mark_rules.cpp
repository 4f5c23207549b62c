#include "properties/mark_rules.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <tuple>

#include "properties/history_support.h"
#include "properties/local_expiry.h"
#include "properties/reference_uri.h"
#include "runtime/errors.h"
#include "sim/fault.h"

namespace fencesim::properties {

using std::string_view_literals::operator""sv;

namespace {

using runtime::EventKind;
// Keyed by the history's interned names (sim/name.h): reading an event copies no bytes.
using HolderKey = std::pair<sim::Name, sim::NameKey>;
using MarkHolderToken = std::tuple<sim::Name, sim::NameKey, runtime::Token>;

// A kFaultApplied event's detail names its fault's kind first (sim::describe(const Fault&)).
bool names_fault(const sim::Name& detail, sim::FaultKind kind) {
  const std::string_view name = sim::to_string(kind);
  return detail.size() > name.size() && detail.starts_with(name) &&
         detail.view()[name.size()] == ' ';
}

// Marks a workload records itself (World::mark), by their names.
class WorkloadMarks final : public MarkRule {
 public:
  EventKinds reads() const override { return kind_bit(sim::WorldEventKind::kMark); }
  std::vector<std::string_view> names() const override { return {}; }
  void observe(const sim::HistoryEvent& e, const Reach& reach) override {
    if (e.world == sim::WorldEventKind::kMark) reach(e.detail);
  }
};

// instance-restarted, store-restarted: a crashed node came back.
class Restarts final : public MarkRule {
 public:
  EventKinds reads() const override { return kind_bit(sim::WorldEventKind::kNodeRestarted); }
  explicit Restarts(const sim::World* world) : world_(world) {}
  std::vector<std::string_view> names() const override {
    return {"instance-restarted", "store-restarted"};
  }
  void observe(const sim::HistoryEvent& e, const Reach& reach) override {
    if (e.world != sim::WorldEventKind::kNodeRestarted) return;
    reach(world_->node_kind(e.node) == sim::NodeKind::kInstance ? "instance-restarted"
                                                                : "store-restarted");
  }

 private:
  const sim::World* world_;
};

// Cancellation's moments (#360): a cancel recorded while a confirm of its tree was in flight, a
// holder that saw a cancel, a tree ended cancelled.
class CancelMarks final : public MarkRule {
 public:
  EventKinds reads() const override {
    return kind_bit(sim::WorldEventKind::kStoreCall) | kind_bit(sim::WorldEventKind::kObserved) |
           kind_bit(sim::WorldEventKind::kRuntime);
  }
  std::vector<std::string_view> names() const override {
    return {"cancel-during-confirm", "cancel-seen", "tree-cancelled"};
  }
  void observe(const sim::HistoryEvent& e, const Reach& reach) override {
    if (e.world == sim::WorldEventKind::kStoreCall && e.store &&
        e.store->op == sim::StoreOp::kCancel && e.store->outcome == "recorded"sv) {
      cancels_.try_emplace(e.store->key, e.time_ns);
    } else if (e.world == sim::WorldEventKind::kObserved && e.runtime.holder == "confirm") {
      auto it = cancels_.find(e.runtime.key);
      if (it != cancels_.end() && e.runtime.value < it->second) reach("cancel-during-confirm");
    } else if (const sim::RuntimeRecord* r = runtime_event(e)) {
      if (r->kind == EventKind::kCancelSeen) reach("cancel-seen");
      if (r->kind == EventKind::kTreeCancelled) reach("tree-cancelled");
    }
  }

 private:
  std::map<sim::NameKey, std::int64_t> cancels_;  // true time of each tree's recorded cancel
};

// How a pass that met a cancel ended, when not the plain way: cancelled-pass-abandoned (the pass
// decided its tree cancelled but could not finish the placement, the queue's store unreachable:
// it gives the tree back for the next pass to end), completion-answered-cancelled (the tree's
// completion was refused because a cancel the pass had not seen was recorded first),
// cancel-seen-by-a-lost-lease (a pass that saw its cancel ended with a lost lease: a cancel does
// not hide a loss). Passes are told apart by their node and tree; a pass begins at kTreeStarted.
class CancelEndings final : public MarkRule {
 public:
  EventKinds reads() const override { return kind_bit(sim::WorldEventKind::kRuntime); }
  std::vector<std::string_view> names() const override {
    return {"cancelled-pass-abandoned", "completion-answered-cancelled",
            "cancel-seen-by-a-lost-lease"};
  }
  void observe(const sim::HistoryEvent& e, const Reach& reach) override {
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) return;
    switch (r->kind) {
      case EventKind::kTreeStarted:
        seen_.erase({e.node, r->key});
        break;
      case EventKind::kCancelSeen:
        seen_.insert({e.node, r->key});
        break;
      case EventKind::kTreeAbandoned:
        if (r->detail.view() == "execution.cancelled"sv) reach("cancelled-pass-abandoned");
        break;
      case EventKind::kCheckpointRefused:
        if (r->step.view() == "<tree>"sv && r->detail.view() == "cancelled"sv) {
          reach("completion-answered-cancelled");
        }
        break;
      case EventKind::kErrorClassified:
        if (r->detail.view().starts_with("execution.lease-lost"sv) &&
            seen_.contains({e.node, r->key})) {
          reach("cancel-seen-by-a-lost-lease");
        }
        break;
      default:
        break;
    }
  }

 private:
  std::set<std::pair<sim::NodeId, sim::NameKey>> seen_;  // passes that saw their cancel
};

// stale-write-refused: a sink refused a stale token. rerun-deduplicated: a sink deduplicated a
// write by its idempotency key. independent-epochs: one sink accepted writes of two scope keys of
// a tenant at different epochs (the high-water mark must be per scope key for both to pass).
class SinkMarks final : public MarkRule {
 public:
  EventKinds reads() const override { return kind_bit(sim::WorldEventKind::kRuntime); }
  std::vector<std::string_view> names() const override {
    return {"stale-write-refused", "rerun-deduplicated", "independent-epochs"};
  }
  void observe(const sim::HistoryEvent& e, const Reach& reach) override {
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) return;
    if (r->kind == EventKind::kSinkRefused) reach("stale-write-refused");
    if (r->kind == EventKind::kSinkDeduplicated) reach("rerun-deduplicated");
    if (r->kind != EventKind::kSinkDeduplicated && r->kind != EventKind::kSinkApplied) return;
    const std::string tenant = r->scope_key.substr(0, r->scope_key.find(':'));
    auto& tokens = accepted_[{r->holder, tenant}];
    tokens[r->scope_key] = r->token;
    for (const auto& [scope, token] : tokens) {
      if (scope != r->scope_key && token != r->token) {
        reach("independent-epochs");
        break;
      }
    }
  }

 private:
  // Tokens accepted at each sink per tenant, by scope key.
  std::map<std::pair<std::string, std::string>, std::map<std::string, runtime::Token>> accepted_;
};

// late-renewal-refused: the store refused a renewal (stale, expired, released).
// stale-renewal-refused: it refused a stale holder's renewal while the next holder held the key
// (granted, not given back).
class StoreRenewalRefusals final : public MarkRule {
 public:
  EventKinds reads() const override { return kind_bit(sim::WorldEventKind::kRuntime); }
  std::vector<std::string_view> names() const override {
    return {"late-renewal-refused", "stale-renewal-refused"};
  }
  void observe(const sim::HistoryEvent& e, const Reach& reach) override {
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) return;
    if (r->kind == EventKind::kStoreRenewRefused) {
      reach("late-renewal-refused");
      if (auto it = granted_.find(r->key); r->detail == "stale" && it != granted_.end() &&
                                           it->second.first > r->token && !it->second.second) {
        reach("stale-renewal-refused");
      }
    } else if (r->kind == EventKind::kStoreLeaseReleased) {
      if (auto it = granted_.find(r->key); it != granted_.end() && it->second.first == r->token) {
        it->second.second = true;
      }
    } else if (r->kind == EventKind::kStoreLeaseGranted) {
      granted_[r->key] = {r->token, false};
    }
  }

 private:
  // Per key, the store's latest grant (token) and whether it was given back since.
  std::map<sim::NameKey, std::pair<runtime::Token, bool>> granted_;
};

// renewal-reply-late: a renewal's reply reached its holder more than the drift margin after the
// store renewed (confirmedUntil must count from the send, never from this receive).
class RenewalReplyLate final : public MarkRule {
 public:
  EventKinds reads() const override { return kind_bit(sim::WorldEventKind::kRuntime); }
  explicit RenewalReplyLate(const sim::World* world)
      : margin_ns_(world ? world->options().lease.drift_margin_ns() : 0) {}
  std::vector<std::string_view> names() const override { return {"renewal-reply-late"}; }
  void observe(const sim::HistoryEvent& e, const Reach& reach) override {
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) return;
    if (r->kind == EventKind::kStoreLeaseRenewed) {
      store_renewed_[{r->holder, r->key, r->token}] = e.time_ns;
    } else if (r->kind == EventKind::kLeaseRenewed) {
      if (auto it = store_renewed_.find({r->holder, r->key, r->token});
          it != store_renewed_.end() && e.time_ns - it->second > margin_ns_) {
        reach("renewal-reply-late");
      }
    }
  }

 private:
  runtime::Nanoseconds margin_ns_;
  // True time of the store's latest renewal per (requester, key, token).
  std::map<MarkHolderToken, std::int64_t> store_renewed_;
};

// The moments at a holder's local expiry, by the expiry the store's grants give its token on the
// holder's monotonic clock (one reading of the grants for both: it is fed every event):
// - checkpoint-reply-after-local-expiry: a step's checkpoint was committed, and its holder read the
//   reply only at or after that expiry (a holder paused with the checkpoint on the wire): the step
//   must then end lost (stale-step-ends-lost);
// - write-attempted-at-belief-end: a step meant a fenced write (the workload's kIntent, recorded
//   as the write is attempted, before the fence's check) at that very instant: the instant
//   explore-write-at-expiry aims at, where the expiry watchdog and the write's check are runnable
//   together (red team 39a-32: the story's timing one latency off, no choice met the instant, and
//   nothing said so).
class LocalExpiryMoments final : public MarkRule {
 public:
  EventKinds reads() const override {
    return kind_bit(sim::WorldEventKind::kStoreCall) | kind_bit(sim::WorldEventKind::kIntent) |
           kind_bit(sim::WorldEventKind::kRuntime);
  }
  // Defaults when only the rules' names are listed (no world).
  explicit LocalExpiryMoments(const sim::World* world)
      : expiries_(world ? expiry_policy_of(world->options().lease) : LocalExpiryPolicy{}) {}
  std::vector<std::string_view> names() const override {
    return {"checkpoint-reply-after-local-expiry", "write-attempted-at-belief-end"};
  }
  void observe(const sim::HistoryEvent& e, const Reach& reach) override {
    expiries_.add(e);
    if (e.world == sim::WorldEventKind::kIntent) {
      const std::optional<LocalExpiries::Expiry> expiry =
          expiries_.expiry(e.runtime.key, e.runtime.token, e.node);
      if (expiry && e.local_monotonic_ns == expiry->monotonic_ns) {
        reach("write-attempted-at-belief-end");
      }
      return;
    }
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr || r->kind != EventKind::kCheckpointCommitted || r->step == "<tree>") return;
    const std::optional<LocalExpiries::Expiry> expiry = expiries_.expiry(r->key, r->token, e.node);
    if (expiry && e.local_monotonic_ns >= expiry->monotonic_ns) {
      reach("checkpoint-reply-after-local-expiry");
    }
  }

 private:
  LocalExpiries expiries_;
};

// renewal-raced-expiry: a renewal was refused as expired, or a holder's lease expired locally
// while its renewal was in flight.
class RenewalRacedExpiry final : public MarkRule {
 public:
  EventKinds reads() const override { return kind_bit(sim::WorldEventKind::kRuntime); }
  std::vector<std::string_view> names() const override { return {"renewal-raced-expiry"}; }
  void observe(const sim::HistoryEvent& e, const Reach& reach) override {
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) return;
    switch (r->kind) {
      case EventKind::kRenewSent:
        renewing_.insert({r->holder, r->key});
        break;
      case EventKind::kLeaseRenewed:
        renewing_.erase({r->holder, r->key});
        break;
      case EventKind::kRenewRefused:
        renewing_.erase({r->holder, r->key});
        if (r->detail == "expired") reach("renewal-raced-expiry");
        break;
      case EventKind::kLeaseLost:
        if (r->detail == "local-expiry" && renewing_.contains({r->holder, r->key})) {
          reach("renewal-raced-expiry");
        }
        renewing_.erase({r->holder, r->key});
        break;
      default:
        break;
    }
  }

 private:
  std::set<HolderKey> renewing_;  // (holder, key) with a renewal in flight
};

// expiry-during-write: a holder's lease expired locally while its fenced write was in flight.
class ExpiryDuringWrite final : public MarkRule {
 public:
  EventKinds reads() const override { return kind_bit(sim::WorldEventKind::kRuntime); }
  std::vector<std::string_view> names() const override { return {"expiry-during-write"}; }
  void observe(const sim::HistoryEvent& e, const Reach& reach) override {
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) return;
    if (r->kind == EventKind::kWriteSent) {
      writing_.insert({r->holder, r->key, r->token});
    } else if (r->kind == EventKind::kWriteAccepted || r->kind == EventKind::kWriteRefused) {
      writing_.erase({r->holder, r->key, r->token});
    } else if (r->kind == EventKind::kLeaseLost && r->detail == "local-expiry" &&
               writing_.contains({r->holder, r->key, r->token})) {
      reach("expiry-during-write");
    }
  }

 private:
  std::set<MarkHolderToken> writing_;  // writes in flight per (holder, key, token)
};

// fenced-after-local-expiry: a pass was classified fenced although its lease had expired locally
// first (the abort signal's reason was a plain lease-lost, so the fenced error was found in the
// failure).
class FencedAfterLocalExpiry final : public MarkRule {
 public:
  EventKinds reads() const override { return kind_bit(sim::WorldEventKind::kRuntime); }
  std::vector<std::string_view> names() const override { return {"fenced-after-local-expiry"}; }
  void observe(const sim::HistoryEvent& e, const Reach& reach) override {
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) return;
    if (r->kind == EventKind::kLeaseLost) {
      lost_.try_emplace({r->holder, r->key, r->token}, r->detail);
    } else if (r->kind == EventKind::kErrorClassified &&
               r->detail == runtime::ExecutionFencedError::kCode) {
      auto it = lost_.find({r->holder, r->key, r->token});
      if (it != lost_.end() && it->second == "local-expiry") reach("fenced-after-local-expiry");
    }
  }

 private:
  std::map<MarkHolderToken, sim::Name> lost_;  // why each held token was first lost at its holder
};

// checkpoint-refused: the checkpoint store refused a stale token.
class CheckpointRefused final : public MarkRule {
 public:
  EventKinds reads() const override { return kind_bit(sim::WorldEventKind::kRuntime); }
  std::vector<std::string_view> names() const override { return {"checkpoint-refused"}; }
  void observe(const sim::HistoryEvent& e, const Reach& reach) override {
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r != nullptr && r->kind == EventKind::kStoreCheckpointRefused) reach("checkpoint-refused");
  }
};

// takeover-mid-step: a key was taken with a new token while a step under the old one was running.
// yield-deferred: a remote-children wait began while a step of its tree was running.
// lease-yielded: a remote-children wait gave the root's lease back.
// yield-taken-over: another holder took a tree whose lease a remote-children wait had yielded.
// retake-after-takeover: the yielding holder took the lease back after such a takeover (the tree
// may have moved on meanwhile: the pass must resume from the store's checkpoint, not its own).
// retake-after-progress: that retake came after the other holder had committed a step of the
// tree (the yielding holder's own checkpoint is out of date: it must read the store's again).
// retake-refused-after-yield: the yielding holder found the lease taken when its wait ended.
// write-refused-after-a-yield: a sink refused a write under a token a remote-children wait had
// given back: the write was left in flight at the yield (a withdrawal's), and its refusal lands
// on a lease that is neither held nor lost. write-refusal-read-after-a-yield: its holder read that
// refusal (its reply came before the call's RPC timeout did), so the lease keeps it for the pass's
// decision.
class StepsAndWaits final : public MarkRule {
 public:
  EventKinds reads() const override { return kind_bit(sim::WorldEventKind::kRuntime); }
  std::vector<std::string_view> names() const override {
    return {"takeover-mid-step",         "yield-deferred",        "lease-yielded",
            "yield-taken-over",          "retake-after-takeover", "retake-after-progress",
            "retake-refused-after-yield", "write-refused-after-a-yield",
            "write-refusal-read-after-a-yield"};
  }
  void observe(const sim::HistoryEvent& e, const Reach& reach) override {
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) return;
    switch (r->kind) {
      case EventKind::kStepStarted:
        ++running_[{r->key, r->token}];
        break;
      case EventKind::kStepEnded:
        --running_[{r->key, r->token}];
        break;
      case EventKind::kStoreLeaseGranted:
        if (r->token > 1 && running_[{r->key, r->token - 1}] > 0) reach("takeover-mid-step");
        break;
      case EventKind::kRemoteWaitBegan:
        waiting_.insert({r->holder, r->key});
        for (const auto& [key_token, count] : running_) {
          if (key_token.first == r->key && count > 0) {
            reach("yield-deferred");  // a step of the tree runs: the wait must keep the lease
            break;
          }
        }
        break;
      case EventKind::kRemoteWaitEnded:
        waiting_.erase({r->holder, r->key});
        yielded_.erase({r->holder, r->key});
        break;
      case EventKind::kLeaseReleased:
        if (waiting_.contains({r->holder, r->key})) {
          reach("lease-yielded");
          yielded_[{r->holder, r->key}] = Since::kYielded;
          yielded_tokens_.emplace(r->scope_key, r->token);
        }
        break;
      case EventKind::kSinkRefused:
        // A sink knows a write by its scope key (its event has no tree key).
        if (yielded_tokens_.contains({r->scope_key, r->token})) {
          reach("write-refused-after-a-yield");
        }
        break;
      case EventKind::kWriteRefused:
        if (yielded_tokens_.contains({r->scope_key, r->token})) {
          reach("write-refusal-read-after-a-yield");
        }
        break;
      case EventKind::kLeaseTaken:
        for (auto& [holder_key, since] : yielded_) {
          if (holder_key.second != r->key) continue;
          if (holder_key.first != r->holder) {
            if (since == Since::kYielded) {
              reach("yield-taken-over");
              since = Since::kTakenOver;
            }
          } else if (since != Since::kYielded) {
            reach("retake-after-takeover");
            if (since == Since::kProgressed) reach("retake-after-progress");
          }
        }
        break;
      case EventKind::kCheckpointCommitted:
        for (auto& [holder_key, since] : yielded_) {
          if (holder_key.second == r->key && holder_key.first != r->holder &&
              since == Since::kTakenOver) {
            since = Since::kProgressed;
          }
        }
        break;
      case EventKind::kTakeRefused:
        if (auto it = yielded_.find({r->holder, r->key}); it != yielded_.end()) {
          if (it->second != Since::kYielded) reach("retake-refused-after-yield");
          yielded_.erase(it);  // the pass is over
        }
        break;
      case EventKind::kTreeStarted:  // a new pass of that holder: whatever it yielded is over
      case EventKind::kTreeAbandoned:
      case EventKind::kTreeCancelled:
        yielded_.erase({r->holder, r->key});
        break;
      default:
        break;
    }
  }

 private:
  // Steps running per (key, token): started and not yet ended.
  std::map<std::pair<sim::NameKey, runtime::Token>, int> running_;
  std::set<HolderKey> waiting_;  // remote-children waits
  std::set<std::pair<sim::Name, runtime::Token>> yielded_tokens_;  // given back by a wait
  // Yields not yet ended (the wait's end or its holder's retake), and what became of the key.
  enum class Since : std::uint8_t { kYielded, kTakenOver, kProgressed };
  std::map<HolderKey, Since> yielded_;
};

// withdrawal-refused-while-live: a withdrawal met its tree live and not running here (before a
// step, between steps, in a checkpoint or a remote-children wait, on another instance): the
// runtime refuses it and its body, which marks the moment, never runs; the refusal is the mark.
class WithdrawalRefused final : public MarkRule {
 public:
  EventKinds reads() const override { return kind_bit(sim::WorldEventKind::kRuntime); }
  std::vector<std::string_view> names() const override { return {"withdrawal-refused-while-live"}; }
  void observe(const sim::HistoryEvent& e, const Reach& reach) override {
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r != nullptr && r->kind == EventKind::kWithdrawalRefused) {
      reach("withdrawal-refused-while-live");
    }
  }
};

// withdrawal-returned-after-its-release: a withdrawal's body returned (its own record,
// scenarios::record_withdrawal_body_returned) after its holder had given back the lease it ran
// under (kLeaseReleased of that token on that node): the moment returned-withdrawal-not-lost
// judges.
class WithdrawalOutlivedRelease final : public MarkRule {
 public:
  EventKinds reads() const override {
    return kind_bit(sim::WorldEventKind::kObserved) | kind_bit(sim::WorldEventKind::kRuntime);
  }
  std::vector<std::string_view> names() const override {
    return {"withdrawal-returned-after-its-release"};
  }
  void observe(const sim::HistoryEvent& e, const Reach& reach) override {
    if (e.world == sim::WorldEventKind::kObserved &&
        e.runtime.holder == "withdrawal-body-returned"sv) {
      if (released_.contains(node_token(e))) {
        reach("withdrawal-returned-after-its-release");
      }
      return;
    }
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) return;
    // Only the releases of tokens a fenced withdrawal ran under are kept (withdrawals are rare,
    // releases are not).
    if (r->kind == EventKind::kWithdrawal && r->token != runtime::kTokenNone) {
      withdrawn_.insert(node_token(e));
    } else if (r->kind == EventKind::kLeaseReleased && !withdrawn_.empty()) {
      const NodeToken held = node_token(e);
      if (withdrawn_.contains(held)) released_.insert(held);
    }
  }

 private:
  std::set<NodeToken> withdrawn_;
  std::set<NodeToken> released_;
};

// signal-reason-read-after-a-second-abort: a body read its lease's signal's reason
// (scenarios::look_at_signal_reason) after the signal was aborted twice: the pass learnt of its
// tree's cancel (kCancelSeen), then gave the lease back or lost it. The moment
// signal-reason-kept judges.
class SignalAbortedTwice final : public MarkRule {
 public:
  EventKinds reads() const override {
    return kind_bit(sim::WorldEventKind::kObserved) | kind_bit(sim::WorldEventKind::kRuntime);
  }
  std::vector<std::string_view> names() const override {
    return {"signal-reason-read-after-a-second-abort"};
  }
  void observe(const sim::HistoryEvent& e, const Reach& reach) override {
    if (e.world == sim::WorldEventKind::kObserved && e.runtime.holder == "signal-reason"sv) {
      if (twice_.contains(node_token(e))) {
        reach("signal-reason-read-after-a-second-abort");
      }
      return;
    }
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) return;
    if (r->kind == EventKind::kCancelSeen) {
      cancelled_.insert(node_token(e));
    } else if ((r->kind == EventKind::kLeaseReleased || r->kind == EventKind::kLeaseLost) &&
               !cancelled_.empty()) {
      const NodeToken signal = node_token(e);
      if (cancelled_.contains(signal)) twice_.insert(signal);
    }
  }

 private:
  std::set<NodeToken> cancelled_;
  std::set<NodeToken> twice_;
};

// signal-looked-at-after-the-cancel-was-seen: a body recorded a look at its abort signal
// (scenarios::look_at_signal) on a node whose pass over that tree had learnt of the tree's cancel
// (kCancelSeen; a new pass or a crash starts over): the moment cancel-aborts-steps judges. A
// workload that read its signal without recording the look (red team 34a) leaves that oracle
// nothing to judge while its own marks still hold; a floor on this mark says the oracle was fed.
class SignalLookedAtAfterTheCancel final : public MarkRule {
 public:
  EventKinds reads() const override {
    return kind_bit(sim::WorldEventKind::kNodeCrashed) | kind_bit(sim::WorldEventKind::kObserved) |
           kind_bit(sim::WorldEventKind::kRuntime);
  }
  std::vector<std::string_view> names() const override {
    return {"signal-looked-at-after-the-cancel-was-seen"};
  }
  void observe(const sim::HistoryEvent& e, const Reach& reach) override {
    // Most runs learn of no cancel: nothing is looked up until one does.
    if (e.world == sim::WorldEventKind::kNodeCrashed) {
      std::erase_if(seen_, [&](const auto& entry) { return entry.first == e.node; });
      return;
    }
    if (e.world == sim::WorldEventKind::kObserved) {
      if (!seen_.empty() && e.runtime.holder == "signal"sv &&
          seen_.contains({e.node, e.runtime.key})) {
        reach("signal-looked-at-after-the-cancel-was-seen");
      }
      return;
    }
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) return;
    if (r->kind == EventKind::kTreeStarted && !seen_.empty()) seen_.erase({e.node, r->key});
    if (r->kind == EventKind::kCancelSeen) seen_.insert({e.node, r->key});
  }

 private:
  std::set<std::pair<sim::NodeId, sim::NameKey>> seen_;
};

// hostile-name-<trait>-ran: a step started in a tree whose tenant id or execution id, or the name
// of a level of the step's path, holds the trait: a ':', '%', '/', a space or other control byte,
// a NUL, a byte past ASCII, a four-byte UTF-8 character (an emoji), or 256 bytes or more (past a
// 255-byte column).
// The names are read as the runtime reported them, by this rule's own reading of their bytes, not
// by the workload's drawing (scenarios/hostile_names.h): a draw that stopped making one kind of
// name (red team 34a: long names never drawn) leaves its mark's floor unmet.
class HostileNameTraits final : public MarkRule {
 public:
  EventKinds reads() const override { return kind_bit(sim::WorldEventKind::kRuntime); }
  static constexpr std::array<std::string_view, 8> kTraits{
      "hostile-name-colon-ran",     "hostile-name-percent-ran", "hostile-name-slash-ran",
      "hostile-name-control-ran",   "hostile-name-nul-ran",     "hostile-name-non-ascii-ran",
      "hostile-name-four-byte-ran", "hostile-name-long-ran"};
  std::vector<std::string_view> names() const override { return {kTraits.begin(), kTraits.end()}; }
  // Each trait is marked once, at the first step that ran with it: a run's share is what its
  // claim judges, and a mark per step (a hundred a run) would crowd the timeline.
  void observe(const sim::HistoryEvent& e, const Reach& reach) override {
    if (reached_ == kAll) return;
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) return;
    if (r->kind == EventKind::kChildPlaced) {
      // An AnyInstance child's execution id is made by the runtime from its parent's and its
      // path's encoded names: its '%' and ':' are the encoding's, not a drawn name's, and would
      // reach percent and colon in every run that places a hostile-named child.
      if (auto parts = reference_split_scope_key(r->detail.view()); parts && parts->size() == 2) {
        placed_children_.emplace((*parts)[0], (*parts)[1]);
      }
      return;
    }
    if (r->kind != EventKind::kStepStarted) return;
    const unsigned fresh = (key_traits_of(r->key) | step_traits_of(r->step)) & ~reached_;
    for (std::size_t i = 0; i < kTraits.size(); ++i) {
      if (fresh & (1u << i)) reach(kTraits[i]);
    }
    reached_ |= fresh;
  }

 private:
  // A step path joins its levels' names with '/', each name encoded (a ':' in a name is "%3A"):
  // read as it is, its slashes are a nested step's separators and its '%'s are any escaped byte's,
  // so the path is read level by level, each level decoded by the oracle's own reading of
  // encodeURIComponent. A level that is not an encoding (a runtime that wrote the name as it
  // is) is read as written. Each path is read once per run, like each name.
  unsigned step_traits_of(const sim::Name& path) {
    if (const auto it = read_steps_.find(path); it != read_steps_.end()) return it->second;
    unsigned traits = 0;
    std::string_view rest = path.view();
    while (true) {
      const std::size_t slash = rest.find('/');
      const std::string_view level = rest.substr(0, slash);
      const auto decoded = reference_split_scope_key(level);
      traits |= decoded && decoded->size() == 1 ? traits_of_bytes(decoded->front())
                                                : traits_of_bytes(level);
      if (slash == std::string_view::npos) break;
      rest.remove_prefix(slash + 1);
    }
    read_steps_.emplace(path, traits);
    return traits;
  }
  // A tree's key is read once per run (most steps of a tree repeat it): a child is placed before
  // any of its steps starts.
  unsigned key_traits_of(const sim::NameKey& key) {
    if (const auto it = read_keys_.find(key); it != read_keys_.end()) return it->second;
    const bool placed_child = placed_children_.contains(
        {std::string(key.tenant_id.view()), std::string(key.lease_execution_id.view())});
    const unsigned traits =
        traits_of_bytes(key.tenant_id.view()) |
        (placed_child ? 0u : traits_of_bytes(key.lease_execution_id.view()));
    read_keys_.emplace(key, traits);
    return traits;
  }
  // Bits in the order of kTraits.
  static unsigned traits_of_bytes(std::string_view name) {
    unsigned traits = 0;
    for (const char c : name) {
      const auto byte = static_cast<unsigned char>(c);
      if (byte == ':') traits |= 1u << 0;
      if (byte == '%') traits |= 1u << 1;
      if (byte == '/') traits |= 1u << 2;
      if ((byte < 0x20 && byte != 0) || byte == ' ' || byte == 0x7f) traits |= 1u << 3;
      if (byte == 0) traits |= 1u << 4;
      if (byte >= 0x80) traits |= 1u << 5;
      if (byte >= 0xf0 && byte <= 0xf4) traits |= 1u << 6;
    }
    if (name.size() >= 256) traits |= 1u << 7;
    return traits;
  }
  static constexpr unsigned kAll = (1u << kTraits.size()) - 1;
  unsigned reached_ = 0;
  std::map<sim::Name, unsigned> read_steps_;
  std::map<sim::NameKey, unsigned> read_keys_;
  std::set<std::pair<std::string, std::string>> placed_children_;
};

// take-of-a-spent-key-refused: a take of a key the store inherited (World::inherit_lease: a row
// from a long-lived disk) failed before any take of it was granted in the run: its epochs were
// spent when the run began (spent-epochs' order-spent, at 2^53-1), and every poll meets the
// refusal. A key inherited one epoch short is granted once first, and its later refusals (a
// retake after a yield) are not this moment. Only inherited keys are watched (few, and only in the
// scenarios that inherit rows).
class SpentKeyRefused final : public MarkRule {
 public:
  EventKinds reads() const override {
    return kind_bit(sim::WorldEventKind::kStoreCall) | kind_bit(sim::WorldEventKind::kRuntime);
  }
  std::vector<std::string_view> names() const override { return {"take-of-a-spent-key-refused"}; }
  void observe(const sim::HistoryEvent& e, const Reach& reach) override {
    if (e.world == sim::WorldEventKind::kStoreCall && e.store) {
      const sim::StoreCall& call = *e.store;
      if (call.op == sim::StoreOp::kRestore) {
        inherited_.emplace(call.key, false);
      } else if (call.op == sim::StoreOp::kTake && call.failed && !inherited_.empty()) {
        auto it = inherited_.find(call.key);
        if (it != inherited_.end() && !it->second) reach("take-of-a-spent-key-refused");
      }
      return;
    }
    if (inherited_.empty()) return;
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r != nullptr && r->kind == EventKind::kStoreLeaseGranted) {
      if (auto it = inherited_.find(r->key); it != inherited_.end()) it->second = true;
    }
  }

 private:
  std::map<sim::NameKey, bool> inherited_;  // inherited key -> granted since
};

// The nightly mix's drawn situations, each marked where it happened, so that a mix whose draws
// stop reaching one is caught by its claim (red team 32c: a remote-wait store fault drawn in 5% of
// seeds instead of 50%, withdrawals never drawn into the quiet phase, cancels only in the first
// 10 s: every sweep and its claims stayed green):
// - store-fault-during-remote-wait: a store slowed or taken down within 1.5 s of a remote-children
//   wait's beginning, the wait still open (kRemoteWaitBegan not yet ended, any holder);
// - withdrawal-in-quiet-phase: a withdrawal (kWithdrawal or kWithdrawalRefused) after the world
//   entered its quiet phase;
// - cancel-recorded-while-its-tree-ran: a client's cancel recorded while a pass over its tree ran
//   (kTreeStarted, not yet completed, abandoned, cancelled or classified).
class DrawnSituations final : public MarkRule {
 public:
  EventKinds reads() const override {
    return kind_bit(sim::WorldEventKind::kPhase) | kind_bit(sim::WorldEventKind::kFaultApplied) |
           kind_bit(sim::WorldEventKind::kStoreCall) | kind_bit(sim::WorldEventKind::kRuntime);
  }
  std::vector<std::string_view> names() const override {
    return {"store-fault-during-remote-wait", "withdrawal-in-quiet-phase",
            "cancel-recorded-while-its-tree-ran"};
  }
  void observe(const sim::HistoryEvent& e, const Reach& reach) override {
    switch (e.world) {
      case sim::WorldEventKind::kPhase:
        quiet_ = e.detail == "quiet"sv;
        return;
      case sim::WorldEventKind::kFaultApplied:
        if (open_waits_ > 0 && e.time_ns - wait_began_ns_ <= kWaitFaultWindowNs &&
            (names_fault(e.detail, sim::FaultKind::kStoreSlow) ||
             names_fault(e.detail, sim::FaultKind::kStoreDown))) {
          reach("store-fault-during-remote-wait");
        }
        return;
      case sim::WorldEventKind::kStoreCall:
        if (e.store && e.store->op == sim::StoreOp::kCancel && !e.store->failed &&
            e.store->outcome == "recorded"sv) {
          for (const HolderKey& pass : passes_) {
            if (pass.second == e.store->key) {
              reach("cancel-recorded-while-its-tree-ran");
              break;
            }
          }
        }
        return;
      case sim::WorldEventKind::kRuntime:
        break;
      default:
        return;
    }
    const sim::RuntimeRecord& r = e.runtime;
    switch (r.kind) {
      case EventKind::kRemoteWaitBegan:
        ++open_waits_;
        wait_began_ns_ = e.time_ns;
        return;
      case EventKind::kRemoteWaitEnded:
        if (open_waits_ > 0) --open_waits_;
        return;
      case EventKind::kWithdrawal:
      case EventKind::kWithdrawalRefused:
        if (quiet_) reach("withdrawal-in-quiet-phase");
        return;
      case EventKind::kTreeStarted:
        passes_.insert({r.holder, r.key});
        return;
      case EventKind::kTreeCompleted:
      case EventKind::kTreeAbandoned:
      case EventKind::kTreeCancelled:
      case EventKind::kErrorClassified:
        if (!passes_.empty()) passes_.erase({r.holder, r.key});
        return;
      default:
        return;
    }
  }

 private:
  // The mix aims its remote-wait store fault at most 1.5 s after a wait began.
  static constexpr std::int64_t kWaitFaultWindowNs = 1'500'000'000;
  bool quiet_ = false;
  std::int64_t open_waits_ = 0;
  std::int64_t wait_began_ns_ = 0;  // when the latest remote wait began
  std::set<HolderKey> passes_;      // (holder, tree) of the passes running
};

// Trouble on a checkpoint store of its own (the nightly mix gives half its seeds one and draws one
// to four faults of four kinds on it), a mark per kind, so that a draw that stops making one kind
// is caught by its claim (red team 32c: the store never slowed, `below(3)` for `below(4)`, and
// every sweep stayed green). A partition names the store as its peer, the others as their node.
class CheckpointStoreTrouble final : public MarkRule {
 public:
  EventKinds reads() const override { return kind_bit(sim::WorldEventKind::kFaultApplied); }
  explicit CheckpointStoreTrouble(const sim::World* world) {
    const std::optional<sim::NodeId> store = world ? world->checkpoint_store() : std::nullopt;
    if (store) {
      store_ = *store;
      as_peer_ = " <-> " + world->node_names().at(*store) + " ";
    }
  }
  std::vector<std::string_view> names() const override {
    return {"checkpoint-store-cut-off", "checkpoint-store-down", "checkpoint-store-dropping",
            "checkpoint-store-slowed"};
  }
  void observe(const sim::HistoryEvent& e, const Reach& reach) override {
    if (store_ == sim::kWorldNode || e.world != sim::WorldEventKind::kFaultApplied) return;
    if (e.node == store_) {
      if (names_fault(e.detail, sim::FaultKind::kStoreDown)) reach("checkpoint-store-down");
      if (names_fault(e.detail, sim::FaultKind::kNetworkDrop)) reach("checkpoint-store-dropping");
      if (names_fault(e.detail, sim::FaultKind::kStoreSlow)) reach("checkpoint-store-slowed");
    } else if (names_fault(e.detail, sim::FaultKind::kPartition) &&
               e.detail.view().find(as_peer_) != std::string_view::npos) {
      reach("checkpoint-store-cut-off");
    }
  }

 private:
  sim::NodeId store_ = sim::kWorldNode;
  std::string as_peer_;  // " <-> NAME ", as sim::describe writes a fault's peer
};

// renewal-at-store-expiry-instant: a renewal the lease store judged at the very instant, on its own
// clock, that the lease it renews expires (the store's latest grant or renewal of the key): the
// instant a store that judged a lease live at its expiry (`<=` in Lease::live_at) would renew an
// expired lease. renewal-at-store-expiry is aimed at it; a stop one latency too long landed the
// renewal 1 ms later, still refused, and its claims stayed met (red team 33b).
class RenewalAtStoreExpiry final : public MarkRule {
 public:
  EventKinds reads() const override { return kind_bit(sim::WorldEventKind::kStoreCall); }
  std::vector<std::string_view> names() const override {
    return {"renewal-at-store-expiry-instant"};
  }
  void observe(const sim::HistoryEvent& e, const Reach& reach) override {
    if (e.world != sim::WorldEventKind::kStoreCall || !e.store || e.store->failed) return;
    const sim::StoreCall& call = *e.store;
    if (call.op == sim::StoreOp::kRenew) {
      const auto it = expires_.find(call.key);
      if (it != expires_.end() && it->second == call.store_wall_ns) {
        reach("renewal-at-store-expiry-instant");
      }
    }
    const bool granted = (call.op == sim::StoreOp::kTake && call.outcome == "taken"sv) ||
                         (call.op == sim::StoreOp::kRenew && call.outcome == "renewed"sv);
    if (granted && call.lease) expires_[call.key] = call.lease->expires_at_ns;
  }

 private:
  std::map<sim::NameKey, runtime::Nanoseconds> expires_;  // key -> its lease's expiry, store clock
};

// `world` null only to list the rules' names (nothing is observed then).
std::vector<std::unique_ptr<MarkRule>> make_rules(const sim::World* world) {
  std::vector<std::unique_ptr<MarkRule>> rules;
  rules.push_back(std::make_unique<WorkloadMarks>());
  rules.push_back(std::make_unique<Restarts>(world));
  rules.push_back(std::make_unique<CancelMarks>());
  rules.push_back(std::make_unique<CancelEndings>());
  rules.push_back(std::make_unique<SinkMarks>());
  rules.push_back(std::make_unique<StoreRenewalRefusals>());
  rules.push_back(std::make_unique<RenewalReplyLate>(world));
  rules.push_back(std::make_unique<LocalExpiryMoments>(world));
  rules.push_back(std::make_unique<RenewalRacedExpiry>());
  rules.push_back(std::make_unique<ExpiryDuringWrite>());
  rules.push_back(std::make_unique<FencedAfterLocalExpiry>());
  rules.push_back(std::make_unique<CheckpointRefused>());
  rules.push_back(std::make_unique<StepsAndWaits>());
  rules.push_back(std::make_unique<WithdrawalRefused>());
  rules.push_back(std::make_unique<WithdrawalOutlivedRelease>());
  rules.push_back(std::make_unique<SignalAbortedTwice>());
  rules.push_back(std::make_unique<SignalLookedAtAfterTheCancel>());
  rules.push_back(std::make_unique<HostileNameTraits>());
  rules.push_back(std::make_unique<SpentKeyRefused>());
  rules.push_back(std::make_unique<DrawnSituations>());
  rules.push_back(std::make_unique<CheckpointStoreTrouble>(world));
  rules.push_back(std::make_unique<RenewalAtStoreExpiry>());
  return rules;
}

}  // namespace

std::vector<std::unique_ptr<MarkRule>> make_mark_rules(const sim::World& world) {
  return make_rules(&world);
}

std::vector<std::string> mark_rule_names() {
  std::vector<std::string> names;
  for (const std::unique_ptr<MarkRule>& rule : make_rules(nullptr)) {
    for (const std::string_view name : rule->names()) names.emplace_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace fencesim::properties
