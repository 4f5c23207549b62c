#pragma once
// The shapes in which an application may wrap a refusal it caught before it fails its step. The ADR
// says a fenced error is "found anywhere in a cause chain or an AggregateError": a workload that
// always wraps it the same way tests one path of that walk, so workloads draw the shape.
#include <cstdint>
#include <exception>
#include <string_view>

namespace fencesim::scenarios {

enum class ErrorShape : std::uint8_t {
  kMemberCause,      // AggregateError{StepError, StepError(cause = refusal)}
  kAggregateCause,   // AggregateError{StepError, StepError}, cause = refusal
  kNestedAggregate,  // AggregateError{AggregateError{refusal}}
  kNestedException,  // std::throw_with_nested around the refusal, inside a StepError
  kDeepChain,        // StepError(StepError(StepError(... refusal)))
  kBare,             // the refusal itself, rethrown
};
inline constexpr std::uint64_t kErrorShapes = 6;

std::string_view to_string(ErrorShape shape);

// `refusal` wrapped in `shape`; the refusal stays reachable only through that shape.
std::exception_ptr wrap_refusal(ErrorShape shape, std::exception_ptr refusal);

}  // namespace fencesim::scenarios
