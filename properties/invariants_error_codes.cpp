// Error code families (issue 9, item 10): "a subclass's code extends its parent's" (ADR-0023,
// Decision). The oracle's own table of the ADR's hierarchy, written from the ADR and issue 9 (never
// the runtime's classes or kCode constants), judges:
// - every error the workload saw or made (scenarios::record_errors: the class it is, most derived
//   of the table's, as the workload's catch sites tell, and the code it showed): its code is
//   well formed, extends the code the ADR fixes for its class and each ancestor, strictly extends
//   the nearest ancestor's when the ADR does not fix its own, and extends the code its parent class
//   showed in the same run;
// - every outcome code the runtime reports (step ended, error classified, tree abandoned or
//   cancelled, withdrawal ended): a dotted code, or one naming the execution family, is a well
//   formed extension of "execution" (the runtime's one family; a foreign error's code names none).
#include <fmt/format.h>

#include <map>

#include "properties/history_support.h"
#include "properties/invariants_fence_use.h"

namespace fencesim::properties {

namespace {

struct ErrorClass {
  std::string_view name;
  std::string_view parent;  // empty for the root
  std::string_view code;    // empty: the ADR fixes no code, only its family
};

// ADR-0023: ExecutionFencedError extends ExecutionLeaseLostError (execution.lease-lost.fenced);
// ExecutionContextUnavailableError; AggregateError. Issue 9 item 10: AggregateError's and
// StepError's codes extend "execution". #360: the cancel. The runtime's withdrawal refusal is a
// context-unavailable error (issue 9 item 2: "refused with a clear error").
constexpr ErrorClass kHierarchy[] = {
    {"ExecutionError", "", "execution"},
    {"ExecutionLeaseLostError", "ExecutionError", "execution.lease-lost"},
    {"ExecutionFencedError", "ExecutionLeaseLostError", "execution.lease-lost.fenced"},
    {"ExecutionContextUnavailableError", "ExecutionError", ""},
    {"WithdrawalRefusedError", "ExecutionContextUnavailableError", ""},
    {"ExecutionCancelledError", "ExecutionError", ""},
    {"AggregateError", "ExecutionError", ""},
    {"StepError", "ExecutionError", ""},
};

const ErrorClass* find_class(std::string_view name) {
  for (const ErrorClass& c : kHierarchy) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

bool well_formed(std::string_view code) {
  if (code.empty()) return false;
  std::size_t segment = 0;
  for (const char c : code) {
    if (c == '.') {
      if (segment == 0) return false;
      segment = 0;
      continue;
    }
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    if (!ok) return false;
    ++segment;
  }
  return segment > 0;
}

// `code` is `base` or `base` followed by '.' and more.
bool extends(std::string_view code, std::string_view base) {
  return code == base ||
         (code.starts_with(base) && code.size() > base.size() && code[base.size()] == '.');
}

bool strictly_extends(std::string_view code, std::string_view base) {
  return code != base && extends(code, base);
}

bool is_outcome_event(const sim::HistoryEvent& e) {
  using runtime::EventKind;
  return is(e, EventKind::kStepEnded) || is(e, EventKind::kErrorClassified) ||
         is(e, EventKind::kTreeAbandoned) || is(e, EventKind::kTreeCancelled) ||
         is(e, EventKind::kWithdrawalEnded);
}

// What is wrong with code `code` shown by an error of class `c`, given the codes each class showed
// first in the run; empty if nothing.
std::string judge(const ErrorClass& c, std::string_view code,
                  const std::map<std::string_view, std::string>& shown) {
  if (!well_formed(code)) return "is not a well-formed dotted code";
  for (const ErrorClass* a = &c; a != nullptr;
       a = a->parent.empty() ? nullptr : find_class(a->parent)) {
    if (!a->code.empty() && !extends(code, a->code)) {
      return fmt::format("does not extend {}'s code '{}'", a->name, a->code);
    }
  }
  if (c.parent.empty()) return {};
  if (c.code.empty()) {
    const ErrorClass* fixed = find_class(c.parent);
    while (fixed->code.empty()) fixed = find_class(fixed->parent);
    if (!strictly_extends(code, fixed->code)) {
      return fmt::format(
          "does not extend {}'s code '{}' (a subclass's code extends its "
          "parent's)",
          fixed->name, fixed->code);
    }
  }
  if (auto it = shown.find(c.parent); it != shown.end() && !strictly_extends(code, it->second)) {
    return fmt::format("does not extend the code '{}' its parent {} showed", it->second, c.parent);
  }
  return {};
}

}  // namespace

void check_error_code_families(const Events& events, std::vector<Violation>& out) {
  const std::string_view name = ErrorCodeFamilies{}.name();
  auto is_error_record = [](const sim::HistoryEvent& e) {
    return e.world == sim::WorldEventKind::kObserved && e.runtime.holder == "error";
  };
  // The code each class showed first (as the most derived class of an error), for the parent rule.
  std::map<std::string_view, std::string> shown;
  for (const sim::HistoryEvent& e : events) {
    if (!is_error_record(e)) continue;
    if (const ErrorClass* c = find_class(e.runtime.detail)) shown.try_emplace(c->name, e.detail);
  }
  for (const sim::HistoryEvent& e : events) {
    if (is_error_record(e)) {
      const ErrorClass* c = find_class(e.runtime.detail);
      if (c == nullptr) {
        out.push_back(violation(
            name,
            fmt::format("an error of class '{}' is not in the ADR's hierarchy", e.runtime.detail),
            {e.index}));
        continue;
      }
      const std::string wrong = judge(*c, e.detail, shown);
      if (wrong.empty()) continue;
      out.push_back(violation(
          name,
          fmt::format(
              "step '{}' of {} saw an error of class {} (at its {}) with code '{}', which {}",
              e.runtime.step, runtime::to_string(e.runtime.key), c->name, e.runtime.scope_key,
              e.detail, wrong),
          {e.index}));
      continue;
    }
    if (!is_outcome_event(e)) continue;
    const std::string& code = e.runtime.detail;
    if (code == "ok") continue;
    const bool claims_family = code.find('.') != std::string::npos || code.starts_with("execution");
    if (!claims_family || (well_formed(code) && extends(code, "execution"))) continue;
    out.push_back(violation(
        name,
        fmt::format("{} reported outcome code '{}' for step '{}' of {}: a dotted code outside the "
                    "execution family",
                    runtime::to_string(e.runtime.kind), code, e.runtime.step,
                    runtime::to_string(e.runtime.key)),
        {e.index}));
  }
}

void ErrorCodeFamilies::check(const sim::World& world, std::vector<Violation>& out) const {
  check_error_code_families(world.history().events(), out);
}

}  // namespace fencesim::properties
