#include "runtime/errors.h"

#include <fmt/format.h>

#include <source_location>
#include <unordered_set>

#include "runtime/check.h"
#include "runtime/scope_key.h"

namespace fencesim::runtime {
namespace {

// One thrown object as the walk sees it. The identity is the address of the most derived object,
// used only to recognise an object seen before; it never orders anything and is never printed.
struct Visit {
  const void* identity = nullptr;
  bool matches = false;
  std::vector<std::exception_ptr> children;  // In the order the walk descends into them.
};

void add_children(const std::exception& error, Visit& visit) {
  if (const auto* aggregate = dynamic_cast<const AggregateError*>(&error)) {
    visit.children = aggregate->errors();
  }
  if (const auto* execution = dynamic_cast<const ExecutionError*>(&error)) {
    visit.children.push_back(execution->cause());
  }
  if (const auto* nested = dynamic_cast<const std::nested_exception*>(&error)) {
    visit.children.push_back(nested->nested_ptr());
  }
}

template <typename Wanted>
Visit inspect(const std::exception_ptr& error) {
  Visit visit;
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& caught) {
    visit.identity = dynamic_cast<const void*>(&caught);
    visit.matches = dynamic_cast<const Wanted*>(&caught) != nullptr;
    add_children(caught, visit);
  } catch (const std::nested_exception& caught) {
    // A bare std::nested_exception, thrown without any std::exception around it.
    visit.identity = dynamic_cast<const void*>(&caught);
    visit.children.push_back(caught.nested_ptr());
  } catch (...) {
    // Anything else thrown (an int, a string) has no causes to follow.
  }
  return visit;
}

// Depth-first, pre-order, with an explicit stack: a cause chain can be longer than the call stack
// is deep, and a cycle must end, so every object is visited at most once.
template <typename Wanted>
std::exception_ptr find_first(const std::exception_ptr& root) noexcept {
  std::unordered_set<const void*> visited;
  std::vector<std::exception_ptr> pending{root};
  while (!pending.empty()) {
    const std::exception_ptr current = std::move(pending.back());
    pending.pop_back();
    if (current == nullptr) continue;
    Visit visit = inspect<Wanted>(current);
    if (visit.identity != nullptr && !visited.insert(visit.identity).second) continue;
    if (visit.matches) return current;
    // Pushed in reverse so that the first child is the next one visited.
    for (auto child = visit.children.rbegin(); child != visit.children.rend(); ++child) {
      pending.push_back(std::move(*child));
    }
  }
  return nullptr;
}

FailureDecision lease_decision(FailureDecision::Kind kind, const std::exception_ptr& found) {
  try {
    std::rethrow_exception(found);
  } catch (const ExecutionLeaseLostError& lost) {
    FailureDecision decision{kind, found, std::string(lost.code()), std::nullopt, std::nullopt};
    if (kind == FailureDecision::Kind::Fenced) {
      decision.stop_token = lost.token();
      decision.stop_key = lost.key();
    }
    return decision;
  } catch (...) {
  }
  check_failed("a found lease error is an ExecutionLeaseLostError",
               std::source_location::current());
}

}  // namespace

ExecutionError::ExecutionError(std::string message, std::exception_ptr cause)
    : message_(std::move(message)), cause_(std::move(cause)) {}

ExecutionLeaseLostError::ExecutionLeaseLostError(LeaseKey key, Token token,
                                                 std::exception_ptr cause)
    : ExecutionLeaseLostError(
          fmt::format("execution lease lost: token {} of scope {}", token, make_scope_key(key)),
          std::move(key), token, std::move(cause)) {}

ExecutionLeaseLostError::ExecutionLeaseLostError(std::string message, LeaseKey key, Token token,
                                                 std::exception_ptr cause)
    : ExecutionError(std::move(message), std::move(cause)), key_(std::move(key)), token_(token) {
  check(token != kTokenNone, "a lost token was once held, so it is at least 1");
  check(token <= kTokenMax, "a lost token is a safe integer");
}

ExecutionFencedError::ExecutionFencedError(LeaseKey key, Token token, Token observed_token,
                                           std::string scope_key, std::exception_ptr cause)
    : ExecutionLeaseLostError(
          fmt::format("execution fenced: token {} refused under scope {}, token {} observed{}", token,
                      scope_key, observed_token,
                      observed_token > token ? ""
                                             : " (not a later token: the refusing system's "
                                               "high-water mark or token check is wrong)"),
          std::move(key), token, std::move(cause)),
      observed_token_(observed_token),
      scope_key_(std::move(scope_key)) {
  check(observed_token <= kTokenMax, "an observed token is a safe integer");
}

ExecutionCancelledError::ExecutionCancelledError(LeaseKey key, std::exception_ptr cause)
    : ExecutionError(fmt::format("execution cancelled: the cancel of {} was recorded",
                                 make_scope_key(key)),
                     std::move(cause)),
      key_(std::move(key)) {}

AggregateError::AggregateError(std::vector<std::exception_ptr> errors, std::string message,
                               std::exception_ptr cause)
    : ExecutionError(message.empty() ? fmt::format("{} errors", errors.size()) : std::move(message),
                     std::move(cause)),
      errors_(std::move(errors)) {
  for (const std::exception_ptr& member : errors_) {
    check(member != nullptr, "an aggregate's members are errors, not null");
  }
}

std::exception_ptr find_fenced_ptr(const std::exception_ptr& error) noexcept {
  return find_first<ExecutionFencedError>(error);
}

std::optional<ExecutionFencedError> find_fenced(const std::exception_ptr& error) noexcept {
  const std::exception_ptr found = find_fenced_ptr(error);
  if (found == nullptr) return std::nullopt;
  try {
    std::rethrow_exception(found);
  } catch (const ExecutionFencedError& fenced) {
    return fenced;
  } catch (...) {
  }
  return std::nullopt;
}

std::exception_ptr find_cancelled_ptr(const std::exception_ptr& error) noexcept {
  return find_first<ExecutionCancelledError>(error);
}

std::exception_ptr find_lease_lost_ptr(const std::exception_ptr& error) noexcept {
  return find_first<ExecutionLeaseLostError>(error);
}

std::string error_code(const std::exception_ptr& error) {
  if (error == nullptr) return "unknown";
  try {
    std::rethrow_exception(error);
  } catch (const ExecutionError& execution) {
    return std::string(execution.code());
  } catch (const std::exception&) {
    return "error";
  } catch (...) {
    return "unknown";
  }
}

FailureDecision decide_failure(const std::exception_ptr& error,
                               const std::exception_ptr& abort_reason) {
  check(error != nullptr, "decide_failure is given the failure it decides about");
  using Kind = FailureDecision::Kind;
  // A refusal first, before the signal's reason: it is the one failure that names a holder to stop.
  for (const std::exception_ptr* source : {&error, &abort_reason}) {
    const std::exception_ptr fenced = find_fenced_ptr(*source);
    if (fenced != nullptr) return lease_decision(Kind::Fenced, fenced);
  }
  const std::exception_ptr lost = find_lease_lost_ptr(error);
  if (lost != nullptr) return lease_decision(Kind::LeaseLost, lost);
  for (const std::exception_ptr* source : {&error, &abort_reason}) {
    const std::exception_ptr cancelled = find_cancelled_ptr(*source);
    if (cancelled != nullptr) {
      return {Kind::Cancelled, cancelled, std::string(ExecutionCancelledError::kCode), std::nullopt,
              std::nullopt};
    }
  }
  if (abort_reason != nullptr) {
    return {Kind::Aborted, abort_reason, error_code(abort_reason), std::nullopt, std::nullopt};
  }
  return {Kind::Failed, error, error_code(error), std::nullopt, std::nullopt};
}

}  // namespace fencesim::runtime
