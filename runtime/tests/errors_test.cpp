// ADR-0023 errors: ExecutionFencedError extends ExecutionLeaseLostError, is found anywhere in a
// cause chain or an AggregateError, and is checked before the signal's reason.
#include "runtime/errors.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <array>
#include <cstdint>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/check.h"
#include "runtime/scope_key.h"

namespace fencesim::runtime::errors_test {
namespace {

using Kind = FailureDecision::Kind;

const LeaseKey kKey{"tenant-1", "execution-1"};

std::exception_ptr fenced(Token token = 3, Token observed = 4, std::exception_ptr cause = nullptr) {
  return std::make_exception_ptr(
      ExecutionFencedError(kKey, token, observed, make_scope_key(kKey), std::move(cause)));
}

std::exception_ptr lease_lost(Token token = 3, std::exception_ptr cause = nullptr) {
  return std::make_exception_ptr(ExecutionLeaseLostError(kKey, token, std::move(cause)));
}

std::exception_ptr step(std::string message, std::exception_ptr cause = nullptr) {
  return std::make_exception_ptr(StepError(std::move(message), std::move(cause)));
}

std::exception_ptr aggregate(std::vector<std::exception_ptr> errors) {
  return std::make_exception_ptr(AggregateError(std::move(errors)));
}

// std::throw_with_nested(outer) while `inner` is being handled, as application code would.
template <typename Outer>
std::exception_ptr nest(const std::exception_ptr& inner, Outer outer) {
  try {
    std::rethrow_exception(inner);
  } catch (...) {
    try {
      std::throw_with_nested(std::move(outer));
    } catch (...) {
      return std::current_exception();
    }
  }
}

// The thrown object itself (libstdc++ rethrows the object an exception_ptr holds, not a copy), so
// that a test can close a cause chain into a cycle the way JavaScript code can.
ExecutionError& thrown(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (ExecutionError& execution) {
    return execution;
  }
}

// Opens the cycles a test closed, so that reference-counted exception_ptrs are freed again.
class CycleBreaker {
 public:
  explicit CycleBreaker(std::vector<std::exception_ptr> errors) : errors_(std::move(errors)) {}
  ~CycleBreaker() {
    for (const auto& error : errors_) thrown(error).set_cause(nullptr);
  }
  CycleBreaker(const CycleBreaker&) = delete;
  CycleBreaker& operator=(const CycleBreaker&) = delete;

 private:
  std::vector<std::exception_ptr> errors_;
};

Token token_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const ExecutionLeaseLostError& lost) {
    return lost.token();
  } catch (...) {
  }
  return kTokenNone;
}

TEST(ErrorCodes, FencedErrorIsALeaseLostErrorAndItsCodeExtendsTheParentCode) {
  const ExecutionFencedError error(kKey, 3, 4, make_scope_key(kKey));
  const ExecutionError& as_base = error;
  EXPECT_NE(dynamic_cast<const ExecutionLeaseLostError*>(&as_base), nullptr);
  EXPECT_EQ(as_base.code(), "execution.lease-lost.fenced");
  const std::string parent(ExecutionLeaseLostError::kCode);
  EXPECT_TRUE(std::string(error.code()).starts_with(parent + "."));
  EXPECT_TRUE(parent.starts_with(std::string(ExecutionError::kCode) + "."));
}

// Every subclass's code extends its parent's (ADR-0023's rule), AggregateError's and StepError's
// too: a caller that asks "is this an execution error" by code sees them.
TEST(ErrorCodes, AggregateAndStepCodesExtendTheExecutionCode) {
  const std::string parent = std::string(ExecutionError::kCode) + ".";
  EXPECT_TRUE(std::string(AggregateError({}).code()).starts_with(parent));
  EXPECT_TRUE(std::string(StepError("m").code()).starts_with(parent));
  EXPECT_TRUE(std::string(ExecutionContextUnavailableError("m").code()).starts_with(parent));
}

TEST(ErrorCodes, EveryErrorHasItsStableCode) {
  EXPECT_EQ(ExecutionError("m").code(), "execution");
  EXPECT_EQ(ExecutionLeaseLostError(kKey, 1).code(), "execution.lease-lost");
  EXPECT_EQ(ExecutionContextUnavailableError("ancestor's fence").code(),
            "execution.context-unavailable");
  EXPECT_EQ(AggregateError({}).code(), "execution.aggregate");
  EXPECT_EQ(StepError("m").code(), "execution.step-failed");
}

TEST(ErrorCodes, FencedErrorCarriesTokensKeyAndScopeKey) {
  const ExecutionFencedError error(kKey, 3, 7, "tenant-1:execution-1");
  EXPECT_EQ(error.key(), kKey);
  EXPECT_EQ(error.token(), 3u);
  EXPECT_EQ(error.observed_token(), 7u);
  EXPECT_EQ(error.scope_key(), "tenant-1:execution-1");
  EXPECT_NE(std::string(error.what()).find("token 3"), std::string::npos) << error.what();
}

// A refusal reporting a token not later than the own one is still a hand-over (ADR-0023: the holder
// of the refused token is stopped); the message says the reporting system is wrong.
TEST(ErrorCodes, ARefusalReportingANonLaterTokenIsStillAFencedError) {
  const ExecutionFencedError same(kKey, 4, 4, "s");
  EXPECT_EQ(same.code(), "execution.lease-lost.fenced");
  EXPECT_EQ(same.observed_token(), 4u);
  EXPECT_NE(std::string(same.what()).find("not a later token"), std::string::npos);
  EXPECT_EQ(ExecutionFencedError(kKey, 5, 4, "s").token(), 5u);
  EXPECT_EQ(std::string(ExecutionFencedError(kKey, 4, 5, "s").what()).find("not a later"),
            std::string::npos);
  EXPECT_THROW(ExecutionFencedError(kKey, 1, kTokenMax + 1, "s"), CheckFailure);
  EXPECT_THROW(ExecutionLeaseLostError(kKey, kTokenNone), CheckFailure);
}

TEST(ErrorCodes, CopiesKeepCodeMessageAndShareTheCause) {
  const std::exception_ptr cause = step("root cause");
  const ExecutionFencedError original(kKey, 3, 4, "s", cause);
  const ExecutionFencedError copy =
      original;  // NOLINT(performance-unnecessary-copy-initialization)
  EXPECT_EQ(copy.code(), original.code());
  EXPECT_STREQ(copy.what(), original.what());
  EXPECT_EQ(copy.cause(), cause);
}

TEST(ErrorCode, IsTheOutermostErrorsCode) {
  EXPECT_EQ(error_code(step("m", fenced())), "execution.step-failed");
  EXPECT_EQ(error_code(fenced()), "execution.lease-lost.fenced");
  EXPECT_EQ(error_code(std::make_exception_ptr(std::runtime_error("m"))), "error");
  EXPECT_EQ(error_code(std::make_exception_ptr(42)), "unknown");
  EXPECT_EQ(error_code(nullptr), "unknown");
}

TEST(FindFenced, FindsTheErrorItself) {
  const std::exception_ptr error = fenced();
  EXPECT_EQ(find_fenced_ptr(error), error);
  ASSERT_TRUE(find_fenced(error).has_value());
  EXPECT_EQ(find_fenced(error)->observed_token(), 4u);
}

TEST(FindFenced, FindsItAnywhereInACauseChain) {
  const std::exception_ptr refusal = fenced();
  const std::exception_ptr error = step("outer", step("middle", lease_lost(2, refusal)));
  EXPECT_EQ(find_fenced_ptr(error), refusal);
}

TEST(FindFenced, FindsItInsideAnAggregate) {
  const std::exception_ptr refusal = fenced();
  const std::exception_ptr error =
      step("outer", aggregate({step("a"), std::make_exception_ptr(7), step("b", refusal)}));
  EXPECT_EQ(find_fenced_ptr(error), refusal);
}

TEST(FindFenced, FindsItThroughNestedException) {
  const std::exception_ptr refusal = fenced();
  EXPECT_EQ(find_fenced_ptr(nest(refusal, std::runtime_error("wrapped"))), refusal);
  EXPECT_EQ(find_fenced_ptr(nest(step("s", refusal), StepError("wrapped"))), refusal);
  // A fenced error thrown with a nested one is itself the refusal.
  const std::exception_ptr wrapper = nest(step("inner"), ExecutionFencedError(kKey, 1, 2, "s"));
  EXPECT_EQ(find_fenced_ptr(wrapper), wrapper);
}

TEST(FindFenced, FirstFoundDepthFirstWins) {
  const std::exception_ptr deep_first = fenced(1, 9);
  const std::exception_ptr shallow_second = fenced(2, 9);
  const std::exception_ptr error = aggregate({step("a", step("b", deep_first)), shallow_second});
  EXPECT_EQ(find_fenced_ptr(error), deep_first);
  // An aggregate's members come before its own cause.
  const std::exception_ptr with_cause =
      std::make_exception_ptr(AggregateError({shallow_second}, "m", deep_first));
  EXPECT_EQ(find_fenced_ptr(with_cause), shallow_second);
}

TEST(FindFenced, NoneWithoutARefusal) {
  const std::exception_ptr error =
      step("outer", aggregate({lease_lost(), std::make_exception_ptr(std::runtime_error("x"))}));
  EXPECT_EQ(find_fenced_ptr(error), nullptr);
  EXPECT_FALSE(find_fenced(error).has_value());
  EXPECT_EQ(find_fenced_ptr(nullptr), nullptr);
}

TEST(FindFenced, TerminatesOnACauseCycle) {
  const std::exception_ptr a = step("a");
  const std::exception_ptr b = step("b", a);
  thrown(a).set_cause(b);  // a -> b -> a
  const CycleBreaker breaker({a});
  EXPECT_EQ(find_fenced_ptr(a), nullptr);
  EXPECT_EQ(find_lease_lost_ptr(b), nullptr);
}

TEST(FindFenced, TerminatesOnASelfCycleAndStillFindsARefusalInACycle) {
  const std::exception_ptr self = step("self");
  thrown(self).set_cause(self);
  const std::exception_ptr refusal = fenced();
  const std::exception_ptr a = step("a");
  const std::exception_ptr b = aggregate({a, refusal});
  thrown(a).set_cause(b);  // a -> aggregate [a, refusal]
  const CycleBreaker breaker({self, a});
  EXPECT_EQ(find_fenced_ptr(self), nullptr);
  EXPECT_EQ(find_fenced_ptr(a), refusal);
}

TEST(DecideFailure, FencedIsCheckedBeforeTheAbortReason) {
  const std::exception_ptr refusal = fenced(5, 6);
  const std::exception_ptr error = step("write failed", refusal);
  const FailureDecision decision = decide_failure(error, step("signal aborted"));
  EXPECT_EQ(decision.kind, Kind::Fenced);
  EXPECT_EQ(decision.error, refusal);  // The error itself is rethrown, not its wrapper.
  EXPECT_EQ(decision.code, "execution.lease-lost.fenced");
  EXPECT_EQ(decision.stop_token, Token{5});
  EXPECT_EQ(decision.stop_key, kKey);
}

TEST(DecideFailure, FencedInsideAnAggregateIsCheckedBeforeTheAbortReason) {
  const std::exception_ptr refusal = fenced();
  const FailureDecision decision =
      decide_failure(aggregate({step("a"), nest(refusal, std::runtime_error("w"))}), lease_lost());
  EXPECT_EQ(decision.kind, Kind::Fenced);
  EXPECT_EQ(decision.error, refusal);
}

TEST(DecideFailure, FencedAbortReasonStopsItsHolder) {
  const std::exception_ptr refusal = fenced(2, 3);
  const FailureDecision decision = decide_failure(step("aborted"), refusal);
  EXPECT_EQ(decision.kind, Kind::Fenced);
  EXPECT_EQ(decision.error, refusal);
  EXPECT_EQ(decision.stop_token, Token{2});
}

TEST(DecideFailure, LeaseLostAnywhereInTheChainIsLeaseLost) {
  const std::exception_ptr lost = lease_lost(4);
  const FailureDecision decision =
      decide_failure(step("outer", aggregate({step("a"), lost})), step("signal aborted"));
  EXPECT_EQ(decision.kind, Kind::LeaseLost);
  EXPECT_EQ(decision.error, lost);
  EXPECT_EQ(decision.code, "execution.lease-lost");
  EXPECT_FALSE(decision.stop_token.has_value());
}

TEST(DecideFailure, AbortReasonWithoutALeaseError) {
  const std::exception_ptr reason = std::make_exception_ptr(std::runtime_error("timeout"));
  const FailureDecision decision = decide_failure(step("step failed"), reason);
  EXPECT_EQ(decision.kind, Kind::Aborted);
  EXPECT_EQ(decision.error, reason);
  EXPECT_EQ(decision.code, "error");
  EXPECT_FALSE(decision.stop_token.has_value());
}

TEST(DecideFailure, FailedWithTheErrorItselfOtherwise) {
  const std::exception_ptr error = step("step failed");
  const FailureDecision decision = decide_failure(error, nullptr);
  EXPECT_EQ(decision.kind, Kind::Failed);
  EXPECT_EQ(decision.error, error);
  EXPECT_EQ(decision.code, "execution.step-failed");
}

TEST(DecideFailure, NeedsAnError) {
  EXPECT_THROW(decide_failure(nullptr, nullptr), CheckFailure);
}

// A random failure: a tree of causes, aggregates and std::nested_exception wrappers.
enum class Shape {
  Step,
  Runtime,
  NonStd,
  LeaseLost,
  Unavailable,
  Caused,
  LostCaused,
  Aggregate,
  Nested
};

struct Tree {
  Shape shape;
  std::vector<Tree> children;
};

// Lets RapidCheck print a counterexample, e.g. Aggregate(Caused(LeaseLost) Step).
void showValue(const Tree& tree, std::ostream& os) {
  static constexpr std::array kNames{"Step",       "Runtime",     "NonStd",
                                     "LeaseLost",  "Unavailable", "Caused",
                                     "LostCaused", "Aggregate",   "Nested"};
  os << kNames[static_cast<std::size_t>(tree.shape)];
  if (tree.children.empty()) return;
  os << "(";
  for (std::size_t i = 0; i < tree.children.size(); ++i) {
    if (i > 0) os << " ";
    showValue(tree.children[i], os);
  }
  os << ")";
}

std::size_t count_nodes(const Tree& tree) {
  std::size_t count = 1;
  for (const Tree& child : tree.children) count += count_nodes(child);
  return count;
}

// Sizes shrink by 0.6 at each level and leaves are forced below 8, so a tree is at most about six
// levels deep (size 100) and an aggregate has at most three members: bounded, yet big enough.
rc::Gen<Tree> gen_tree() {
  return rc::gen::withSize([](int size) -> rc::Gen<Tree> {
    const auto leaf = rc::gen::map(rc::gen::element(Shape::Step, Shape::Runtime, Shape::NonStd,
                                                    Shape::LeaseLost, Shape::Unavailable),
                                   [](Shape shape) {
                                     return Tree{shape, {}};
                                   });
    if (size < 8) return leaf;
    const auto child = rc::gen::scale(0.6, rc::gen::lazy(&gen_tree));
    const auto one_child = [child](Shape shape) {
      return rc::gen::map(child, [shape](Tree inner) { return Tree{shape, {std::move(inner)}}; });
    };
    const auto members = rc::gen::mapcat(rc::gen::inRange(0, 4), [child](int count) {
      return rc::gen::container<std::vector<Tree>>(static_cast<std::size_t>(count), child);
    });
    return rc::gen::weightedOneOf<Tree>({
        {1, leaf},
        {2, one_child(Shape::Caused)},
        {1, one_child(Shape::LostCaused)},
        {1, one_child(Shape::Nested)},
        {2, rc::gen::map(members,
                         [](std::vector<Tree> all) {
                           return Tree{Shape::Aggregate, all};
                         })},
    });
  });
}

// Builds a tree, numbering nodes in the order find_fenced_ptr walks them; node `fenced_at` becomes
// the refusal (causing its first child, if any).
class Builder {
 public:
  explicit Builder(std::size_t fenced_at) : fenced_at_(fenced_at) {}

  // The refusal built, and the first ExecutionLeaseLostError in walk order; null when absent.
  const std::exception_ptr& refusal() const { return refusal_; }
  const std::exception_ptr& first_lost() const { return first_lost_; }

  std::exception_ptr build(const Tree& tree) {
    const std::size_t index = next_index_++;
    std::vector<std::exception_ptr> children;
    for (const Tree& child : tree.children) children.push_back(build(child));
    const std::exception_ptr first = children.empty() ? nullptr : children.front();
    if (index == fenced_at_) {
      refusal_ = fenced(7, 8, first);
      return refusal_;
    }
    std::exception_ptr error = build_shape(tree.shape, first, children);
    const bool is_lost = tree.shape == Shape::LeaseLost || tree.shape == Shape::LostCaused;
    // Children are built before their parent, so the lowest walk index decides, not build order.
    if (is_lost && index < first_lost_index_) {
      first_lost_ = error;
      first_lost_index_ = index;
    }
    return error;
  }

 private:
  static std::exception_ptr build_shape(Shape shape, const std::exception_ptr& first,
                                        std::vector<std::exception_ptr> children) {
    switch (shape) {
      case Shape::Step:
        return step("step");
      case Shape::Runtime:
        return std::make_exception_ptr(std::runtime_error("runtime"));
      case Shape::NonStd:
        return std::make_exception_ptr(42);
      case Shape::LeaseLost:
        return lease_lost(2);
      case Shape::Unavailable:
        return std::make_exception_ptr(ExecutionContextUnavailableError("no lease"));
      case Shape::Caused:
        return step("caused", first);
      case Shape::LostCaused:
        return lease_lost(2, first);
      case Shape::Aggregate:
        return aggregate(std::move(children));
      case Shape::Nested:
        return nest(first, std::runtime_error("wrapper"));
    }
    return nullptr;
  }

  std::size_t fenced_at_;
  std::size_t next_index_ = 0;
  std::exception_ptr refusal_;
  std::exception_ptr first_lost_;
  std::size_t first_lost_index_ = SIZE_MAX;
};

rc::Gen<std::exception_ptr> gen_abort_reason() {
  return rc::gen::map(rc::gen::inRange(0, 6), [](int which) -> std::exception_ptr {
    switch (which) {
      case 0:
        return nullptr;  // The signal was not aborted.
      case 1:
        return step("aborted");
      case 2:
        return std::make_exception_ptr(std::runtime_error("timeout"));
      case 3:
        return lease_lost(2);
      case 4:
        return std::make_exception_ptr(ExecutionContextUnavailableError("gone"));
      default:
        return fenced(1, 9);
    }
  });
}

RC_GTEST_PROP(DecideFailure, FencedIffARefusalIsPresentWhateverTheAbortReason, ()) {
  const Tree tree = *gen_tree();
  const std::size_t nodes = count_nodes(tree);
  // fenced_at == nodes: no refusal in the failure.
  const bool refused = *rc::gen::arbitrary<bool>();
  const auto fenced_at = refused ? *rc::gen::inRange<std::size_t>(0, nodes) : nodes;
  const std::exception_ptr reason = *gen_abort_reason();
  Builder builder(fenced_at);
  const std::exception_ptr error = builder.build(tree);

  const FailureDecision decision = decide_failure(error, reason);
  const bool reason_fenced = find_fenced_ptr(reason) != nullptr;
  const bool present = builder.refusal() != nullptr || reason_fenced;
  RC_CLASSIFY(builder.refusal() != nullptr, "refusal in failure");
  RC_CLASSIFY(reason != nullptr, "aborted");
  RC_TAG(nodes > 10 ? "more than 10 nodes" : "up to 10 nodes");
  RC_CLASSIFY(builder.first_lost() != nullptr, "lease lost in failure");

  RC_ASSERT((decision.code == "execution.lease-lost.fenced") == present);
  RC_ASSERT((decision.kind == Kind::Fenced) == present);
  if (builder.refusal() != nullptr) {
    RC_ASSERT(decision.error == builder.refusal());  // The failure's refusal before the reason's.
    RC_ASSERT(decision.stop_token == Token{7});
  } else if (reason_fenced) {
    RC_ASSERT(decision.error == reason);
  } else if (builder.first_lost() != nullptr) {
    RC_ASSERT(decision.kind == Kind::LeaseLost);
    RC_ASSERT(decision.error == builder.first_lost());
  } else if (reason != nullptr) {
    RC_ASSERT(decision.kind == Kind::Aborted);
    RC_ASSERT(decision.error == reason);
  } else {
    RC_ASSERT(decision.kind == Kind::Failed);
    RC_ASSERT(decision.error == error);
  }
  if (decision.kind == Kind::Fenced) {
    RC_ASSERT(decision.stop_token == token_of(decision.error));
  }
}

}  // namespace
}  // namespace fencesim::runtime::errors_test

namespace fencesim::runtime::errors_test {
namespace {

// Cancellation (#360): its code extends the execution family; the decision finds it anywhere in
// a failure or as the signal's reason, after a lost lease and before any other abort reason.
TEST(ErrorCodes, CancelledCodeExtendsTheExecutionCode) {
  const ExecutionCancelledError cancelled(LeaseKey{"t", "e"});
  EXPECT_EQ(cancelled.code(), "execution.cancelled");
  EXPECT_TRUE(std::string(cancelled.code()).starts_with(std::string(ExecutionError::kCode) + "."));
}

TEST(DecideFailure, ACancelIsFoundInTheFailureOrTheReasonAfterALostLease) {
  const LeaseKey key{"t", "e"};
  const auto cancel = std::make_exception_ptr(ExecutionCancelledError(key));
  const auto wrapped = std::make_exception_ptr(StepError("body gave up", cancel));
  FailureDecision decision = decide_failure(wrapped, nullptr);
  EXPECT_EQ(decision.kind, FailureDecision::Kind::Cancelled);
  EXPECT_EQ(decision.error, cancel);
  EXPECT_EQ(decision.code, "execution.cancelled");
  EXPECT_FALSE(decision.stop_token.has_value());
  decision = decide_failure(std::make_exception_ptr(StepError("x")), cancel);
  EXPECT_EQ(decision.kind, FailureDecision::Kind::Cancelled);
  const auto lost = std::make_exception_ptr(ExecutionLeaseLostError(key, 2));
  decision = decide_failure(std::make_exception_ptr(AggregateError({cancel, lost})), nullptr);
  EXPECT_EQ(decision.kind, FailureDecision::Kind::LeaseLost);
}

// A loss is weighed in the failure only: the signal's reason is searched for a refusal and a
// cancel, so a failure naming the cancel under a signal that a loss (or a lease given back)
// aborted first is a cancel (red team 43b-14 ranked the reason's loss before the cancel; the
// property test above saw it in most of its random runs, not all).
TEST(DecideFailure, ALossInTheReasonDoesNotOutrankACancelInTheFailure) {
  const LeaseKey key{"t", "e"};
  const auto cancel = std::make_exception_ptr(ExecutionCancelledError(key));
  const auto lost = std::make_exception_ptr(ExecutionLeaseLostError(key, 2));
  FailureDecision decision = decide_failure(cancel, lost);
  EXPECT_EQ(decision.kind, FailureDecision::Kind::Cancelled);
  EXPECT_EQ(decision.code, "execution.cancelled");
  decision = decide_failure(std::make_exception_ptr(StepError("body gave up", cancel)), lost);
  EXPECT_EQ(decision.kind, FailureDecision::Kind::Cancelled);
  EXPECT_FALSE(decision.stop_token.has_value());
}

}  // namespace
}  // namespace fencesim::runtime::errors_test
