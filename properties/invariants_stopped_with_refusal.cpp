// Part of refusal-hands-over (properties/invariants_hand_over.h): a holder stopped by a refusal
// is stopped *with it* (ADR-0023: "the error itself is rethrown, and the holder of its token is
// stopped with it"). Once the runtime handed a refusal to a body of a holder, whatever the fence of
// that holder's token says afterwards names the refusal: assertHeld() throws
// execution.lease-lost.fenced, neither returns nor throws a plain lease-lost error, on every step
// of the holder (a sibling branch sharing the lease included), however the lease had ended before.
//
// Judged from the workload's own records, never the runtime's classes or beliefs: that a refusal
// was handed over is known from what the body got (its fenced(observed) call returned the fenced
// error; or a write or a confirm threw an object of class ExecutionFencedError, the workload's own
// dynamic_cast), or, for a refusal the body built itself, from the runtime's decision about the
// step that threw it (its step-ended or withdrawal-ended event: the runtime cannot know of the
// error before); what the fence says, from the body's reads of it (scenarios::read_fence).
#include <fmt/format.h>

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "properties/fence_read.h"
#include "properties/hand_over_records.h"
#include "properties/history_support.h"
#include "properties/invariants_hand_over.h"

namespace fencesim::properties {

namespace {

using hand_over::built_by_body;
using hand_over::kFencedCode;
using hand_over::made_by_withdrawal;

// Written here from the ADR, never taken from the runtime.
constexpr std::string_view kFencedClass = "ExecutionFencedError";

// Whether a "fenced" record says the body got the hand-over error (a wrong code is reported by
// refusal-hands-over's own check, and is no hand-over here).
bool got_refusal(const sim::HistoryEvent& e) {
  return e.runtime.holder == "fenced" && e.detail == kFencedCode;
}

// A refusal the runtime handed to a body: fenced() returned the hand-over error, or a call threw
// an object of the fenced class. A refusal the body built itself is handed over later (below).
bool hands_over(const sim::HistoryEvent& e) {
  return (got_refusal(e) && !built_by_body(e)) ||
         (e.runtime.holder == "thrown" && e.detail == kFencedClass);
}

// A refusal the body built itself: the runtime learns of it only when it decides about the body
// that threw it, a withdrawal's at the withdrawal's end, a step's at the step's end (a withdrawal
// running in a step's frame shares the step's path, so the kind tells the two apart).
runtime::EventKind deciding_kind(const sim::HistoryEvent& record) {
  return made_by_withdrawal(record) ? runtime::EventKind::kWithdrawalEnded
                                    : runtime::EventKind::kStepEnded;
}

}  // namespace

void check_stopped_with_refusal(const Events& events, std::vector<Violation>& out) {
  std::map<NodeToken, std::uint64_t> handed;  // the first hand-over each holder's body got
  // Refusals bodies built, until the runtime's decision about their step: (holder, step) -> record.
  std::map<std::pair<NodeToken, std::string>, std::uint64_t> built;
  for (const sim::HistoryEvent& e : events) {
    const NodeToken at{e.node, e.runtime.key, e.runtime.token};
    if (e.world == sim::WorldEventKind::kRuntime) {
      const runtime::EventKind kind = e.runtime.kind;
      if (built.empty() || (kind != runtime::EventKind::kStepEnded &&
                            kind != runtime::EventKind::kWithdrawalEnded)) {
        continue;
      }
      if (auto it = built.find({at, std::string(e.runtime.step.view())});
          it != built.end() && deciding_kind(events[it->second]) == kind) {
        handed.try_emplace(at, it->second);
        built.erase(it);
      }
      continue;
    }
    if (e.world != sim::WorldEventKind::kObserved) continue;
    if (hands_over(e)) {
      handed.try_emplace(at, e.index);
      continue;
    }
    if (got_refusal(e) && built_by_body(e)) {
      built.try_emplace({at, std::string(e.runtime.step.view())}, e.index);
      continue;
    }
    if (e.runtime.holder != "fence") continue;
    const auto it = handed.find(at);
    if (it == handed.end()) continue;
    const std::optional<FenceRead> read = parse_fence_read(e.detail.view());
    if (!read || (!read->held && read->lost_code == kFencedCode)) continue;
    const sim::HistoryEvent& over = events[it->second];
    out.push_back(violation(
        RefusalHandsOver{}.name(),
        fmt::format("step '{}' of {} (token {}) read its fence after its holder was handed a "
                    "refusal ({} got {} from {}, step '{}'): assertHeld() {}, not the refusal {}",
                    e.runtime.step.view(), runtime::to_string(e.runtime.key), e.runtime.token,
                    over.runtime.holder == "fenced" ? "fenced()" : "a call", over.detail.view(),
                    over.runtime.holder == "fenced" ? "the body" : over.runtime.scope_key.view(),
                    over.runtime.step.view(),
                    read->held                ? std::string("returned")
                    : read->lost_code.empty() ? std::string("threw an error with no code")
                                              : fmt::format("threw {}", read->lost_code),
                    kFencedCode),
        {it->second, e.index}));
  }
}

}  // namespace fencesim::properties
