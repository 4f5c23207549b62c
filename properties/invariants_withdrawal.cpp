// Withdrawals (issue 9, items 2 and 3; ADR-0023, Consequences: "A withdrawal made after the tree
// ended runs without a fence (its frame is rebuilt from the checkpoint); a withdrawal made inside a
// pass has its step's"). Judged by two records that do not come from the runtime's decision:
// - the tree's end is the stores' record of it (properties/tree_end.h): the checkpoint store's
//   commit of its completion, or, for a cancelled tree, the queue's finish of its placement after
//   the cancel was recorded (the cancelled pass's finish; issue 29 item 1), never the runtime's
//   belief that the tree ended;
// - the frame a withdrawal got is what its body saw (scenarios::record_withdrawal_frame: fenced or
//   not, the frame's step path, and the path the withdrawal named).
// The runtime's own kWithdrawal "unfenced" report is judged by the same rule: a runtime that says
// it ran a withdrawal unfenced before the store recorded the tree's end says it broke the rule.
#include <fmt/format.h>

#include <map>

#include "properties/history_support.h"
#include "properties/invariants_fence_use.h"
#include "properties/tree_end.h"

namespace fencesim::properties {

void check_withdrawal_frame(const Events& events, std::vector<Violation>& out) {
  const std::string_view name = WithdrawalFrame{}.name();
  TreeEnds ends;  // the stores' record of each tree's end
  for (const sim::HistoryEvent& e : events) {
    ends.add(e);
    const bool body_record =
        e.world == sim::WorldEventKind::kObserved && e.runtime.holder == "withdrawal";
    const bool runtime_report = is(e, runtime::EventKind::kWithdrawal);
    if (!body_record && !runtime_report) continue;
    const sim::RuntimeRecord& r = e.runtime;
    const bool unfenced = body_record ? e.detail == "unfenced" : r.detail == "unfenced";
    if (unfenced && !ends.ended(r.key)) {
      out.push_back(violation(
          name,
          fmt::format("a withdrawal for step '{}' of {} ran without a fence ({}) before the stores "
                      "recorded the tree's end (its completion, or its cancelled pass's finish)",
                      r.step, runtime::to_string(r.key),
                      body_record ? "as its body saw it" : "as the runtime reported it"),
          {e.index}));
    }
    if (body_record && !unfenced && r.step != r.scope_key) {
      out.push_back(violation(
          name,
          fmt::format("a withdrawal named step '{}' of {} but ran in the fenced frame of step '{}' "
                      "(token {})",
                      r.scope_key, runtime::to_string(r.key), r.step, r.token),
          {e.index}));
    }
  }
}

void WithdrawalFrame::check(const sim::World& world, std::vector<Violation>& out) const {
  check_withdrawal_frame(world.history().events(), out);
}

}  // namespace fencesim::properties
