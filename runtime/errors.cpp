#include "runtime/errors.h"

#include <fmt/format.h>

#include <source_location>
#include <unordered_set>

#include "runtime/check.h"
#include "runtime/scope_key.h"

namespace fencesim::runtime {
namespace {

// The kinds of error a decision looks for among a failure's causes. A fenced error is a lease-lost
// one too.
enum Kinds : unsigned { kFenced = 1, kLeaseLost = 2, kCancelled = 4 };

// One thrown object as the walk sees it. The identity is the address of the most derived object,
// used only to recognise an object seen before; it never orders anything and is never printed.
struct Visit {
  const void* identity = nullptr;
  unsigned kinds = 0;                        // Which of Kinds the object is.
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

// One rethrow per object: every kind is read from the one catch (a decision asks about three
// kinds in two failures; a rethrow through the unwinder costs thousands of instructions).
Visit inspect(const std::exception_ptr& error) {
  Visit visit;
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& caught) {
    visit.identity = dynamic_cast<const void*>(&caught);
    if (dynamic_cast<const ExecutionFencedError*>(&caught) != nullptr) visit.kinds |= kFenced;
    if (dynamic_cast<const ExecutionLeaseLostError*>(&caught) != nullptr) visit.kinds |= kLeaseLost;
    if (dynamic_cast<const ExecutionCancelledError*>(&caught) != nullptr) visit.kinds |= kCancelled;
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

// The first error of each wanted kind among a failure and its causes.
struct Found {
  std::exception_ptr fenced;
  std::exception_ptr lease_lost;
  std::exception_ptr cancelled;
};

// Depth-first, pre-order, with an explicit stack: a cause chain can be longer than the call stack
// is deep, and a cycle must end, so every object is visited at most once. Each kind's first object
// is the one a walk for that kind alone would stop at (the order and the objects skipped are the
// same); the walk ends once every wanted kind is found.
Found find_first(const std::exception_ptr& root, unsigned wanted) noexcept {
  Found found;
  unsigned missing = wanted;
  std::unordered_set<const void*> visited;
  std::vector<std::exception_ptr> pending{root};
  while (!pending.empty() && missing != 0) {
    const std::exception_ptr current = std::move(pending.back());
    pending.pop_back();
    if (current == nullptr) continue;
    Visit visit = inspect(current);
    if (visit.identity != nullptr && !visited.insert(visit.identity).second) continue;
    const unsigned first = visit.kinds & missing;
    if (first & kFenced) found.fenced = current;
    if (first & kLeaseLost) found.lease_lost = current;
    if (first & kCancelled) found.cancelled = current;
    missing &= ~first;
    // Pushed in reverse so that the first child is the next one visited.
    for (auto child = visit.children.rbegin(); child != visit.children.rend(); ++child) {
      pending.push_back(std::move(*child));
    }
  }
  return found;
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
          fmt::format("execution fenced: token {} refused under scope {}, token {} observed{}",
                      token, scope_key, observed_token,
                      observed_token > token ? ""
                                             : " (not a later token: the refusing system's "
                                               "high-water mark or token check is wrong)"),
          std::move(key), token, std::move(cause)),
      observed_token_(observed_token),
      scope_key_(std::move(scope_key)) {
  check(observed_token <= kTokenMax, "an observed token is a safe integer");
}

ExecutionCancelledError::ExecutionCancelledError(LeaseKey key, std::exception_ptr cause)
    : ExecutionError(
          fmt::format("execution cancelled: the cancel of {} was recorded", make_scope_key(key)),
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
  return find_first(error, kFenced).fenced;
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
  return find_first(error, kCancelled).cancelled;
}

std::exception_ptr find_lease_lost_ptr(const std::exception_ptr& error) noexcept {
  return find_first(error, kLeaseLost).lease_lost;
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
  // One walk of each: the failure's refusal, loss and cancel, the reason's refusal and cancel.
  const Found in_error = find_first(error, kFenced | kLeaseLost | kCancelled);
  const Found in_reason =
      abort_reason != nullptr ? find_first(abort_reason, kFenced | kCancelled) : Found{};
  // A refusal first, before the signal's reason: it is the one failure that names a holder to stop.
  for (const Found* source : {&in_error, &in_reason}) {
    if (source->fenced != nullptr) return lease_decision(Kind::Fenced, source->fenced);
  }
  if (in_error.lease_lost != nullptr) return lease_decision(Kind::LeaseLost, in_error.lease_lost);
  for (const Found* source : {&in_error, &in_reason}) {
    if (source->cancelled != nullptr) {
      return {Kind::Cancelled, source->cancelled, std::string(ExecutionCancelledError::kCode),
              std::nullopt, std::nullopt};
    }
  }
  if (abort_reason != nullptr) {
    return {Kind::Aborted, abort_reason, error_code(abort_reason), std::nullopt, std::nullopt};
  }
  return {Kind::Failed, error, error_code(error), std::nullopt, std::nullopt};
}

}  // namespace fencesim::runtime
