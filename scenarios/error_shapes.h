#pragma once
// The shapes in which an application may wrap a refusal it caught before it fails its step. The ADR
// says a fenced error is "found anywhere in a cause chain or an AggregateError": a workload that
// always wraps it the same way tests one path of that walk, so workloads draw the shape.
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>

namespace fencesim::scenarios {

enum class ErrorShape : std::uint8_t {
  kMemberCause,        // AggregateError{StepError, StepError(cause = refusal)}
  kAggregateCause,     // AggregateError{StepError, StepError}, cause = refusal
  kNestedAggregate,    // AggregateError{AggregateError{refusal}}
  kNestedException,    // std::throw_with_nested around the refusal, inside a StepError
  kDeepChain,          // StepError(StepError(StepError(... refusal)))
  kBare,               // the refusal itself, rethrown
  kNestedInStepError,  // std::throw_with_nested(StepError) around the refusal: the runtime's own
                       // error type carrying it as a nested exception, not as its cause
};
inline constexpr std::uint64_t kErrorShapes = 7;

std::string_view to_string(ErrorShape shape);

// The shape a workload's wrapping step uses at its `run`-th run (counted from a start drawn per
// seed): every other run the aggregate's own cause, the shape the ADR's "found anywhere in ... an
// AggregateError" is easiest to miss on (a walk that takes an aggregate's members and its cause as
// alternatives), the other runs each other shape in turn. A sweep meets a refusal in a rare window
// (after the lease's local expiry, with the abort reason a plain lease-lost) a few times a
// minute: half of those meetings must be in the shape that only the cause reaches.
inline constexpr std::uint64_t kShapeCycle = 2 * (kErrorShapes - 1);
ErrorShape shape_of_run(std::uint64_t run);

// A wrapping step's shapes, run after run: shape_of_run(start), shape_of_run(start + 1), ... The
// count moves only here, so a step cannot read its shape without moving on (red team 45b-08: a
// step that read it without counting wrapped every refusal of a run alike, and only the per-seed
// start varied; every sweep stayed green).
class ShapeCycle {
 public:
  explicit ShapeCycle(std::uint64_t start) : run_(start) {}
  ErrorShape next() { return shape_of_run(run_++); }

 private:
  std::uint64_t run_;
};

// `refusal` wrapped in `shape`; the refusal stays reachable only through that shape.
std::exception_ptr wrap_refusal(ErrorShape shape, std::exception_ptr refusal);

// The outline of an error as thrown, for a mark (letters, digits and '.'): each error in preorder,
// '.'-separated, as a letter (A: AggregateError followed by its count of members, F:
// ExecutionFencedError, S: StepError, E: another of the ADR's errors, X: anything else), then 'c'
// if it has an ExecutionError cause and 'n' if it carries a std::nested_exception; an aggregate's
// members come before its cause, the cause before the nested exception. So the seven shapes
// outline as seven different strings ("A2.S.Sc.F" for the member cause, "Sn.F" for the refusal
// nested in a StepError), and a workload can mark the shape it threw, not the one it meant.
std::string error_outline(const std::exception_ptr& error);

}  // namespace fencesim::scenarios
