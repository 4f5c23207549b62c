#include "scenarios/error_shapes.h"

#include <iterator>
#include <stdexcept>
#include <utility>
#include <vector>

#include "runtime/errors.h"

namespace fencesim::scenarios {

using runtime::AggregateError;
using runtime::StepError;

std::string_view to_string(ErrorShape shape) {
  switch (shape) {
    case ErrorShape::kMemberCause:
      return "member-cause";
    case ErrorShape::kAggregateCause:
      return "aggregate-cause";
    case ErrorShape::kNestedAggregate:
      return "nested-aggregate";
    case ErrorShape::kNestedException:
      return "nested-exception";
    case ErrorShape::kDeepChain:
      return "deep-chain";
    case ErrorShape::kBare:
      return "bare";
    case ErrorShape::kNestedInStepError:
      return "nested-in-step-error";
  }
  return "unknown";
}

namespace {

std::exception_ptr step_error(std::string message, std::exception_ptr cause = nullptr) {
  return std::make_exception_ptr(StepError(std::move(message), std::move(cause)));
}

// std::throw_with_nested captures the exception being handled: rethrow the refusal and wrap it
// from its handler (nothing in between yields to another fiber).
std::exception_ptr nested_in_step_error(std::exception_ptr refusal) {
  try {
    std::rethrow_exception(std::move(refusal));
  } catch (...) {
    try {
      std::throw_with_nested(std::runtime_error("charge failed"));
    } catch (...) {
      return step_error("step failed", std::current_exception());
    }
  }
}

// An application that fails its step with the runtime's StepError from a handler: the refusal is
// the nested exception of an ExecutionError (a walk that follows nesting only outside the
// runtime's own errors misses it).
std::exception_ptr nested_in_own_step_error(std::exception_ptr refusal) {
  try {
    std::rethrow_exception(std::move(refusal));
  } catch (...) {
    try {
      std::throw_with_nested(StepError("charge failed"));
    } catch (...) {
      return std::current_exception();
    }
  }
}

}  // namespace

ErrorShape shape_of_run(std::uint64_t run) {
  static constexpr ErrorShape kOthers[] = {ErrorShape::kMemberCause,
                                           ErrorShape::kNestedAggregate,
                                           ErrorShape::kNestedException,
                                           ErrorShape::kDeepChain,
                                           ErrorShape::kBare,
                                           ErrorShape::kNestedInStepError};
  static_assert(std::size(kOthers) == kErrorShapes - 1);
  const std::uint64_t at = run % kShapeCycle;
  return at % 2 == 1 ? ErrorShape::kAggregateCause : kOthers[at / 2];
}

std::exception_ptr wrap_refusal(ErrorShape shape, std::exception_ptr refusal) {
  switch (shape) {
    case ErrorShape::kMemberCause:
      return std::make_exception_ptr(AggregateError(
          {step_error("audit failed"), step_error("charge failed", std::move(refusal))}));
    case ErrorShape::kAggregateCause:
      return std::make_exception_ptr(
          AggregateError({step_error("audit failed"), step_error("charge failed")},
                         "both branches failed", std::move(refusal)));
    case ErrorShape::kNestedAggregate:
      return std::make_exception_ptr(AggregateError(
          {step_error("audit failed"),
           std::make_exception_ptr(AggregateError({std::move(refusal)}, "charge failed"))}));
    case ErrorShape::kNestedException:
      return nested_in_step_error(std::move(refusal));
    case ErrorShape::kDeepChain: {
      std::exception_ptr chain = std::move(refusal);
      for (int depth = 0; depth < 5; ++depth) chain = step_error("charge failed", chain);
      return chain;
    }
    case ErrorShape::kNestedInStepError:
      return nested_in_own_step_error(std::move(refusal));
    case ErrorShape::kBare:
      break;
  }
  return refusal;
}

namespace {

// Deep enough for every shape (the deep chain is six); a cycle of causes stops here.
constexpr int kOutlineDepth = 16;

void outline_into(const std::exception_ptr& error, int depth, std::string& out) {
  if (!out.empty()) out += '.';
  if (depth > kOutlineDepth) {
    out += "etc";
    return;
  }
  std::vector<std::exception_ptr> children;
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& thrown) {
    const auto* execution = dynamic_cast<const runtime::ExecutionError*>(&thrown);
    if (const auto* aggregate = dynamic_cast<const AggregateError*>(&thrown)) {
      out += 'A';
      out += std::to_string(aggregate->errors().size());
      children = aggregate->errors();
    } else if (dynamic_cast<const runtime::ExecutionFencedError*>(&thrown) != nullptr) {
      out += 'F';
    } else if (dynamic_cast<const StepError*>(&thrown) != nullptr) {
      out += 'S';
    } else {
      out += execution != nullptr ? 'E' : 'X';
    }
    if (execution != nullptr && execution->cause() != nullptr) {
      out += 'c';
      children.push_back(execution->cause());
    }
    const auto* nested = dynamic_cast<const std::nested_exception*>(&thrown);
    if (nested != nullptr && nested->nested_ptr() != nullptr) {
      out += 'n';
      children.push_back(nested->nested_ptr());
    }
  } catch (...) {
    out += 'X';
  }
  for (const std::exception_ptr& child : children) outline_into(child, depth + 1, out);
}

}  // namespace

std::string error_outline(const std::exception_ptr& error) {
  std::string out;
  if (error != nullptr) outline_into(error, 0, out);
  return out;
}

}  // namespace fencesim::scenarios
