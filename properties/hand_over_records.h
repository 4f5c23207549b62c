#pragma once
// What refusal-hands-over's checks read from the workload's record of a body's hand-over (a
// kObserved "fenced" record, scenarios::reconcile_step): shared by invariants_hand_over.cpp and
// invariants_stopped_with_refusal.cpp so that both read the record alike.
#include <string_view>

#include "sim/history.h"

namespace fencesim::properties::hand_over {

// The ADR's code of the hand-over error, written here from the ADR (never the runtime's constant).
inline constexpr std::string_view kFencedCode = "execution.lease-lost.fenced";

// The record's sink names who handed over: "downstream-withdrawal..." from a withdrawal's body in
// the step's frame; "/own-error" at its end when the body built the error instead of fenced().
inline constexpr std::string_view kOwnError = "/own-error";

inline bool made_by_withdrawal(const sim::HistoryEvent& record) {
  std::string_view by = record.runtime.scope_key.view();
  if (by.ends_with(kOwnError)) by.remove_suffix(kOwnError.size());
  return by.ends_with("-withdrawal");
}

inline bool built_by_body(const sim::HistoryEvent& record) {
  return record.runtime.scope_key.view().ends_with(kOwnError);
}

}  // namespace fencesim::properties::hand_over
