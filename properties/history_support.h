#pragma once
// What several checkers read out of a history: runtime events by kind, who held which token, the
// runs of steps with what happened during them, and when each held token was lost. Built once per
// check by a single pass; the checkers then judge.
#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "properties/invariant.h"
#include "properties/key_hash.h"
#include "runtime/observer.h"
#include "sim/history.h"

namespace fencesim::properties {

// Outcomes compared as views: the size first, no strlen and no call per comparison (a std::string
// against a C string is both, and the oracles compare every store call's outcome).
using std::string_view_literals::operator""sv;

// The runtime event of `e`, or null for a world event.
inline const sim::RuntimeRecord* runtime_event(const sim::HistoryEvent& e) {
  return e.world == sim::WorldEventKind::kRuntime ? &e.runtime : nullptr;
}

// A placement the queue took: a kPlace the lease store answered "ok". One it refused (a client's
// root under an AnyInstance child's reserved key, sim::World::client_place) or that threw (its
// error in `outcome`) placed nothing.
inline bool is_placement(const sim::StoreCall& call) {
  return call.op == sim::StoreOp::kPlace && call.outcome == "ok"sv;
}

// A take the lease store failed (threw) instead of answering: the key's epochs are spent
// (ADR-0023: past 2^53-1 an error, never a grant), so the take, a retake after a yield say, is
// refused and no later one can succeed. Null for any other event.
inline const sim::StoreCall* failed_take(const sim::HistoryEvent& e) {
  if (e.world != sim::WorldEventKind::kStoreCall || !e.store || !e.store->failed) return nullptr;
  return e.store->op == sim::StoreOp::kTake ? e.store.get() : nullptr;
}

// A loss of the record's token as it reached its holder: its own report (kLeaseLost), or a
// store's or sink's refusal it received (a tree commit refused for the tree's cancel is none).
inline bool is_known_loss(const sim::RuntimeRecord& r) {
  switch (r.kind) {
    case runtime::EventKind::kLeaseLost:
    case runtime::EventKind::kRenewRefused:
    case runtime::EventKind::kWriteRefused:
      return true;
    case runtime::EventKind::kCheckpointRefused:
      return r.detail != "cancelled"sv;
    default:
      return false;
  }
}

inline bool is(const sim::HistoryEvent& e, runtime::EventKind kind) {
  return e.world == sim::WorldEventKind::kRuntime && e.runtime.kind == kind;
}

// A token as the instance (node) that held it: node, lease key, token. For the records a node's
// bodies make (they name their node, not their holder); restarted incarnations take tokens of
// their own.
using NodeToken = std::tuple<sim::NodeId, sim::NameKey, runtime::Token>;
inline NodeToken node_token(const sim::HistoryEvent& e) {
  return {e.node, e.runtime.key, e.runtime.token};
}

// A token as one holder held it: holder, lease key, token. Names (sim/name.h): copying one copies
// no bytes, and comparing two of one run compares identities first.
struct HeldToken {
  sim::Name holder;
  sim::NameKey key;
  runtime::Token token = runtime::kTokenNone;

  friend auto operator<=>(const HeldToken&, const HeldToken&) = default;
  friend bool operator==(const HeldToken&, const HeldToken&) = default;
  // Its parts, for KeyHash (properties/key_hash.h).
  auto tie() const { return std::tie(holder, key, token); }
};

inline HeldToken held_token(const sim::RuntimeRecord& r) {
  return {r.holder, r.key, r.token};
}


// A refusal that names a later token: a sink refused a write, or the checkpoint store saw a higher
// epoch (a refusal of a released lease is not a fence).
inline bool is_fenced_refusal(const sim::RuntimeRecord& r) {
  if (r.kind == runtime::EventKind::kWriteRefused) return true;
  return r.kind == runtime::EventKind::kCheckpointRefused &&
         static_cast<runtime::Token>(r.value) > r.token;
}

// One run of a step at a holder: from its kStepStarted to its kStepEnded (if it ended).
struct StepRun {
  HeldToken held;
  sim::Name path;
  std::uint64_t started = 0;
  std::optional<std::uint64_t> ended;
  sim::Name outcome;                             // the kStepEnded detail
  std::optional<std::uint64_t> checkpoint_sent;  // the holder's kCheckpointSent for the step
  std::optional<std::uint64_t> store_committed;  // the store's kStoreCheckpointCommitted for it
  std::optional<std::uint64_t> own_refusal;      // a fenced refusal met by this step itself
};

// What happened to each held token: the first loss (kLeaseLost or kLeaseReleased) at its holder.
struct TokenLoss {
  std::uint64_t index = 0;
  runtime::EventKind kind = runtime::EventKind::kLeaseLost;
  sim::Name detail;
};

struct StepHistory {
  std::vector<StepRun> runs;  // in order of their kStepStarted
  std::map<HeldToken, TokenLoss> first_loss;
  // Per lease key, the store's grants in history order: (event index, token).
  std::map<sim::NameKey, std::vector<std::pair<std::uint64_t, runtime::Token>>> grants;
};

StepHistory read_steps(const std::vector<sim::HistoryEvent>& events);

// The first grant of `key` with a token above `token`, at or after index 0, if any.
std::optional<std::uint64_t> first_higher_grant(const StepHistory& steps, const sim::NameKey& key,
                                                runtime::Token token);

// The first loss of `held` strictly before history index `before`, if any.
const TokenLoss* loss_before(const StepHistory& steps, const HeldToken& held, std::uint64_t before);

// "holder h, token t of tenant:exec, step p" for messages.
std::string describe_run(const StepRun& run);

inline Violation violation(std::string_view invariant, std::string message,
                           std::vector<std::uint64_t> events) {
  return Violation{std::string(invariant), std::move(message), std::move(events)};
}

}  // namespace fencesim::properties
