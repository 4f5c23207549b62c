// refusal-is-a-loss (properties/invariants_after_loss.h): a store's refusal that reached its
// holder ends the token, whatever the refusal's reason.
#include <fmt/format.h>

#include <optional>
#include <unordered_map>

#include "properties/history_support.h"
#include "properties/invariants_after_loss.h"
#include "runtime/errors.h"

namespace fencesim::properties {

using runtime::EventKind;

namespace {

// A store's refusal of the holder's renewal or checkpoint that is not a fence (stopped-holder
// judges those): the holder's report that the refusal reached it. A tree commit refused because
// the tree's cancel was recorded first is no refusal of the token: the pass ends the tree.
bool is_store_refusal(const sim::RuntimeRecord& r) {
  if (r.kind == EventKind::kRenewRefused) return true;
  return r.kind == EventKind::kCheckpointRefused && !is_fenced_refusal(r) &&
         r.detail != "cancelled";
}

bool is_loss_record(const sim::RuntimeRecord& r) {
  return r.kind == EventKind::kLeaseLost || is_fenced_refusal(r) ||
         (r.kind == EventKind::kCheckpointRefused && r.detail != "cancelled");
}

// What a holder starts or sends under a token: a step, and the calls that leave under it.
bool starts_or_sends(EventKind kind) {
  return kind == EventKind::kStepStarted || kind == EventKind::kWriteSent ||
         kind == EventKind::kCheckpointSent || kind == EventKind::kUncheckedCallSent;
}

}  // namespace

void check_refusal_is_a_loss(const std::vector<sim::HistoryEvent>& events,
                             std::vector<Violation>& out) {
  const std::string_view name = RefusalIsALoss{}.name();
  std::unordered_map<HeldToken, std::uint64_t, KeyHash> refused;  // -> the store's refusal as it reached the holder
  std::unordered_map<HeldToken, std::uint64_t, KeyHash> lost;     // -> the first loss or refusal of any kind
  for (const sim::HistoryEvent& e : events) {
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) continue;
    // A step the holder decided fenced stops the holder of its token at that decision ("the
    // error itself is rethrown, and the holder of its token is stopped with it"), also when no
    // store's refusal reached it (the application re-raised its own system's refusal): sibling
    // branches send nothing more under that token.
    const bool decided_fenced =
        r->kind == EventKind::kStepEnded && r->detail == runtime::ExecutionFencedError::kCode;
    if (is_store_refusal(*r) || decided_fenced) refused.try_emplace(held_token(*r), e.index);
    if (is_store_refusal(*r) || is_loss_record(*r) || decided_fenced) {
      lost.try_emplace(held_token(*r), e.index);
      continue;
    }
    if (!starts_or_sends(r->kind)) continue;
    const HeldToken held = held_token(*r);
    std::optional<std::uint64_t> cause_index;
    if (auto it = refused.find(held); it != refused.end()) {
      cause_index = it->second;
    } else if (auto l = lost.find(held); l != lost.end() && r->kind == EventKind::kStepStarted) {
      cause_index = l->second;
    }
    if (!cause_index) continue;
    const sim::HistoryEvent& cause = events[*cause_index];
    out.push_back(violation(
        name,
        fmt::format("{} sent {} under token {} of {} (step '{}') after {} of that token ('{}') "
                    "had reached it: a refused or lost token is over",
                    r->holder, runtime::to_string(r->kind), r->token, runtime::to_string(r->key),
                    r->step, runtime::to_string(cause.runtime.kind),
                    std::string_view(cause.runtime.detail)),
        {*cause_index, e.index}));
  }
}

void RefusalIsALoss::check(const sim::World& world, std::vector<Violation>& out) const {
  check_refusal_is_a_loss(world.history().events(), out);
}

}  // namespace fencesim::properties
