// The fence at its holder: it is a fact of its step's frame (fence scoping), and once the token it
// names is refused or lost, nothing more leaves under that token (stopped holder).
#include <fmt/format.h>

#include <unordered_map>

#include "properties/history_support.h"
#include "properties/invariants_builtin.h"

namespace fencesim::properties {

using runtime::EventKind;

namespace {

// What leaves a holder under a token: the fence's outgoing calls, and the step's checkpoint.
bool sends_under_token(EventKind kind) {
  return kind == EventKind::kWriteSent || kind == EventKind::kCheckpointSent ||
         kind == EventKind::kConfirmSent || kind == EventKind::kUncheckedCallSent;
}

// The calls made through a step's fence (its checkpoint is the runner's, not the fence's).
bool sent_through_fence(EventKind kind) {
  return kind == EventKind::kWriteSent || kind == EventKind::kConfirmSent ||
         kind == EventKind::kUncheckedCallSent;
}

using RunAtHolder = std::pair<HeldToken, sim::Name>;

// Only looked up (KeyHash).
using RunIndex = std::unordered_map<RunAtHolder, std::uint64_t, KeyHash>;

void judge_scoped(const sim::HistoryEvent& e, const RunIndex& running, const RunIndex& ended,
                  std::vector<Violation>& out) {
  const sim::RuntimeRecord& r = e.runtime;
  const RunAtHolder run{held_token(r), r.step};
  if (running.contains(run)) return;
  const std::string what =
      fmt::format("{} by {} under token {} of {} for step '{}'", runtime::to_string(r.kind),
                  r.holder, r.token, runtime::to_string(r.key), r.step);
  if (auto it = ended.find(run); it != ended.end()) {
    out.push_back(violation(FenceScoping{}.name(),
                            what + " after that step ended: a fence kept past its step refuses",
                            {it->second, e.index}));
  } else {
    out.push_back(violation(FenceScoping{}.name(),
                            what + ", but no such step of that token was running", {e.index}));
  }
}

}  // namespace

void check_fence_scoping(const Events& events, std::vector<Violation>& out) {
  RunIndex running;  // -> its kStepStarted
  RunIndex ended;    // -> its last kStepEnded
  for (const sim::HistoryEvent& e : events) {
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) continue;
    if (r->kind == EventKind::kStepStarted) {
      running[RunAtHolder{held_token(*r), r->step}] = e.index;
    } else if (r->kind == EventKind::kStepEnded) {
      const RunAtHolder run{held_token(*r), r->step};
      running.erase(run);
      ended[run] = e.index;
    } else if (sent_through_fence(r->kind) ||
               (r->kind == EventKind::kWithdrawal && r->detail == "fenced")) {
      judge_scoped(e, running, ended, out);
    }
  }
}

void check_stopped_holder(const Events& events, std::vector<Violation>& out) {
  std::unordered_map<HeldToken, std::uint64_t, KeyHash> stopped;  // -> the refusal or loss that stopped it
  for (const sim::HistoryEvent& e : events) {
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) continue;
    if (is_fenced_refusal(*r) || r->kind == EventKind::kLeaseLost ||
        r->kind == EventKind::kLeaseReleased) {
      stopped.try_emplace(held_token(*r), e.index);
      continue;
    }
    if (!sends_under_token(r->kind)) continue;
    auto it = stopped.find(held_token(*r));
    if (it == stopped.end()) continue;
    out.push_back(violation(StoppedHolder{}.name(),
                            fmt::format("{} sent {} under token {} of {} (step '{}') after that "
                                        "token was refused or lost",
                                        r->holder, runtime::to_string(r->kind), r->token,
                                        runtime::to_string(r->key), r->step),
                            {it->second, e.index}));
  }
}

void FenceScoping::check(const sim::World& world, std::vector<Violation>& out) const {
  check_fence_scoping(world.history().events(), out);
}

void StoppedHolder::check(const sim::World& world, std::vector<Violation>& out) const {
  check_stopped_holder(world.history().events(), out);
}

}  // namespace fencesim::properties
