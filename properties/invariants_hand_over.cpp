// Refusal hands over: see properties/invariants_hand_over.h. One pass over the history: each
// body's record of its fenced(observed) call opens three expectations (its step's end, its pass's
// classification, and silence under the token), which the holder's later events settle.
#include "properties/invariants_hand_over.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "properties/hand_over_records.h"
#include "properties/history_support.h"

namespace fencesim::properties {

using runtime::EventKind;

namespace {

using hand_over::built_by_body;
using hand_over::kFencedCode;
using hand_over::made_by_withdrawal;

struct HandedOver {
  std::uint64_t record = 0;  // the body's kObserved "fenced" record
  sim::Name step;
  bool by_withdrawal = false;  // made by a withdrawal's body in the step's frame
  bool step_judged = false;
  bool pass_judged = false;
  bool silent = true;  // the holder must send nothing more (from the decision, for an own error)
};

bool is_send(EventKind kind) {
  return kind == EventKind::kWriteSent || kind == EventKind::kCheckpointSent ||
         kind == EventKind::kConfirmSent;
}

std::string subject(const sim::HistoryEvent& record) {
  return fmt::format("step '{}' of {} (token {}) handed over a refusal reporting token {}",
                     record.runtime.step.view(), runtime::to_string(record.runtime.key),
                     record.runtime.token, record.runtime.detail.view());
}

}  // namespace

void check_refusal_hands_over(const Events& events, std::vector<Violation>& out) {
  check_withdrawal_returns(events, out);
  check_stopped_with_refusal(events, out);
  const std::string_view name = RefusalHandsOver{}.name();
  std::map<NodeToken, HandedOver> handed;
  for (const sim::HistoryEvent& e : events) {
    if (e.world == sim::WorldEventKind::kObserved && e.runtime.holder == "fenced") {
      const NodeToken at{e.node, e.runtime.key, e.runtime.token};
      handed.try_emplace(at, HandedOver{e.index, e.runtime.step, made_by_withdrawal(e), false,
                                        false, !built_by_body(e)});
      if (e.detail != kFencedCode) {
        out.push_back(violation(name,
                                fmt::format("{}: fenced() gave its body '{}', not the hand-over "
                                            "error {}",
                                            subject(e), e.detail.view(), kFencedCode),
                                {e.index}));
      }
      continue;
    }
    if (e.world == sim::WorldEventKind::kObserved && e.runtime.holder == "fenced-past-step") {
      // fenced(observed) refused because its step had ended (a withdrawal's body in the step's
      // frame, the rejection came after the step): the call refuses, but the refusal still stops
      // the holder of the token (red team re-read 2026-12-04, finding 2). Only the silence under
      // the token is judged: the step's end and its pass's classification came before, or were
      // made without the refusal.
      const NodeToken at{e.node, e.runtime.key, e.runtime.token};
      handed.try_emplace(at, HandedOver{e.index, e.runtime.step, true, true, true, true});
      continue;
    }
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr || handed.empty()) continue;
    if (!is_send(r->kind) && r->kind != EventKind::kStepEnded &&
        r->kind != EventKind::kErrorClassified && r->kind != EventKind::kWithdrawalEnded) {
      continue;
    }
    auto it = handed.find({e.node, r->key, r->token});
    if (it == handed.end()) continue;
    HandedOver& over = it->second;
    const sim::HistoryEvent& record = events[over.record];
    if (is_send(r->kind)) {
      if (!over.silent) continue;
      out.push_back(violation(name,
                              fmt::format("{}: its holder {} still sent {} (step '{}') under the "
                                          "token afterwards",
                                          subject(record), r->holder.view(),
                                          runtime::to_string(r->kind), r->step.view()),
                              {over.record, e.index}));
    } else if (over.by_withdrawal) {
      // A withdrawal's failure is decided apart from its step's pass: its own end is judged.
      if (r->kind != EventKind::kWithdrawalEnded || r->step != over.step || over.step_judged) {
        continue;
      }
      over.step_judged = true;
      over.silent = true;
      if (r->detail != kFencedCode) {
        out.push_back(violation(name,
                                fmt::format("{}: the withdrawal that did it ended '{}', not {}",
                                            subject(record), r->detail.view(), kFencedCode),
                                {over.record, e.index}));
      }
    } else if (r->kind == EventKind::kStepEnded && r->step == over.step && !over.step_judged) {
      over.step_judged = true;
      over.silent = true;
      if (r->detail != kFencedCode) {
        out.push_back(violation(name,
                                fmt::format("{}: the step ended '{}', not {}", subject(record),
                                            r->detail.view(), kFencedCode),
                                {over.record, e.index}));
      }
    } else if (r->kind == EventKind::kErrorClassified && !over.pass_judged) {
      over.pass_judged = true;
      if (r->detail != kFencedCode) {
        out.push_back(violation(name,
                                fmt::format("{}: its pass was classified '{}', not {}",
                                            subject(record), r->detail.view(), kFencedCode),
                                {over.record, e.index}));
      }
    }
  }
}

// What each withdrawal gave back to its client (the world's withdrawal-returned record), for the
// withdrawals whose body handed a refusal over: the refusal itself, as the ADR says ("the error
// itself is rethrown"), not the wrapper the body threw. A withdrawal is matched to its hand-over
// by node and step path; while two withdrawals of one step on one node overlap, which return is
// whose cannot be told, and neither is judged.
namespace {
struct OpenWithdrawals {
  int open = 0;
  bool overlapped = false;
  std::optional<std::uint64_t> handed;  // the hand-over record of the one open withdrawal
};
}  // namespace

void check_withdrawal_returns(const Events& events, std::vector<Violation>& out) {
  std::map<std::pair<sim::NodeId, std::string_view>, OpenWithdrawals> withdrawals;
  for (const sim::HistoryEvent& e : events) {
    if (e.world != sim::WorldEventKind::kObserved) continue;
    const std::string_view what = e.runtime.holder.view();
    OpenWithdrawals& w = withdrawals[{e.node, e.runtime.step.view()}];
    if (what == "withdrawal-began") {
      w.overlapped = w.overlapped || w.open > 0;
      ++w.open;
    } else if (what == "fenced" && made_by_withdrawal(e)) {
      if (w.open == 1 && !w.overlapped && !w.handed) w.handed = e.index;
    } else if (what == "withdrawal-returned") {
      if (w.open == 1 && !w.overlapped && w.handed && e.detail != kFencedCode) {
        out.push_back(
            violation(RefusalHandsOver{}.name(),
                      fmt::format("{}: the withdrawal that did it gave its client '{}', "
                                  "not the refusal ({})",
                                  subject(events[*w.handed]), e.detail.view(), kFencedCode),
                      {*w.handed, e.index}));
      }
      w.handed.reset();
      if (w.open > 0) --w.open;
      if (w.open == 0) w.overlapped = false;
    }
  }
}

void RefusalHandsOver::check(const sim::World& world, std::vector<Violation>& out) const {
  check_refusal_hands_over(world.history().events(), out);
}

}  // namespace fencesim::properties
