// Every shape keeps the refusal reachable the way the ADR says it must be found (anywhere in a
// cause chain or an AggregateError), by a walk of the test's own, and only the bare shape is the
// refusal itself.
#include "scenarios/error_shapes.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/errors.h"

namespace fencesim::scenarios::error_shapes_test {
namespace {

// Depth of the refusal below `error` (0: it is the refusal), or -1 if unreachable.
int depth_of(const std::exception_ptr& error, const runtime::ExecutionFencedError* refusal,
             int depth = 0) {
  if (!error || depth > 16) return -1;
  std::vector<std::exception_ptr> children;
  try {
    std::rethrow_exception(error);
  } catch (const runtime::ExecutionFencedError& fenced) {
    if (&fenced == refusal) return depth;
  } catch (const runtime::AggregateError& aggregate) {
    children = aggregate.errors();
    children.push_back(aggregate.cause());
  } catch (const runtime::ExecutionError& execution) {
    children.push_back(execution.cause());
    if (const auto* nested = dynamic_cast<const std::nested_exception*>(&execution)) {
      children.push_back(nested->nested_ptr());
    }
  } catch (const std::nested_exception& nested) {
    children.push_back(nested.nested_ptr());
  } catch (...) {
  }
  for (const std::exception_ptr& child : children) {
    if (const int found = depth_of(child, refusal, depth + 1); found >= 0) return found;
  }
  return -1;
}

// A refusal and the object it holds, so that a walk can tell it from a copy.
struct Refusal {
  std::exception_ptr error;
  const runtime::ExecutionFencedError* object = nullptr;
};

Refusal a_refusal() {
  Refusal refusal{std::make_exception_ptr(runtime::ExecutionFencedError(
      runtime::LeaseKey{"tenant-1", "order-1"}, 1, 2, "tenant-1:order-1"))};
  try {
    std::rethrow_exception(refusal.error);
  } catch (const runtime::ExecutionFencedError& fenced) {
    refusal.object = &fenced;
  }
  return refusal;
}

TEST(ErrorShapes, EveryShapeKeepsTheRefusalReachableAndOnlyBareIsTheRefusal) {
  for (std::uint64_t i = 0; i < kErrorShapes; ++i) {
    const auto shape = static_cast<ErrorShape>(i);
    const Refusal refusal = a_refusal();
    const int depth = depth_of(wrap_refusal(shape, refusal.error), refusal.object);
    EXPECT_GE(depth, 0) << to_string(shape);
    EXPECT_EQ(depth == 0, shape == ErrorShape::kBare) << to_string(shape) << " depth " << depth;
  }
}

// The deep chain is deep: the refusal five step errors down, deeper than any other shape puts it
// (red team 32c: a chain of one passed every test and every sweep, the runtime finding a refusal
// one level down as easily, and the walk through a long chain went unexercised).
TEST(ErrorShapes, TheDeepChainHidesTheRefusalFiveLevelsDown) {
  const Refusal refusal = a_refusal();
  const int deep = depth_of(wrap_refusal(ErrorShape::kDeepChain, refusal.error), refusal.object);
  EXPECT_EQ(deep, 5);
  for (std::uint64_t i = 0; i < kErrorShapes; ++i) {
    const auto shape = static_cast<ErrorShape>(i);
    if (shape == ErrorShape::kDeepChain) continue;
    EXPECT_LT(depth_of(wrap_refusal(shape, refusal.error), refusal.object), deep)
        << to_string(shape);
  }
}

TEST(ErrorShapes, TheAggregateCauseShapeHidesTheRefusalFromItsMembers) {
  const std::exception_ptr refusal = std::make_exception_ptr(runtime::ExecutionFencedError(
      runtime::LeaseKey{"tenant-1", "order-1"}, 1, 2, "tenant-1:order-1"));
  try {
    std::rethrow_exception(wrap_refusal(ErrorShape::kAggregateCause, refusal));
  } catch (const runtime::AggregateError& aggregate) {
    EXPECT_EQ(aggregate.cause(), refusal);
    for (const std::exception_ptr& member : aggregate.errors()) EXPECT_NE(member, refusal);
    return;
  } catch (...) {
  }
  ADD_FAILURE() << "the aggregate-cause shape is not an AggregateError";
}

TEST(ErrorShapes, HalfOfTheRunsUseTheAggregateCauseAndEveryShapeComesRound) {
  std::map<ErrorShape, int> seen;
  for (std::uint64_t run = 7; run < 7 + kShapeCycle; ++run) ++seen[shape_of_run(run)];
  EXPECT_EQ(seen[ErrorShape::kAggregateCause], static_cast<int>(kShapeCycle / 2));
  EXPECT_EQ(seen.size(), kErrorShapes);
  for (std::uint64_t run = 0; run < 40; ++run) {
    EXPECT_EQ(shape_of_run(run) == ErrorShape::kAggregateCause, run % 2 == 1) << run;
  }
}

// The two nested shapes put the refusal where their names say: nested-in-step-error makes it the
// nested exception of the runtime's own StepError (a walk that follows std::nested_exception only
// outside the runtime's errors misses it there), nested-exception makes it the nested exception
// of a std::runtime_error that a StepError carries as its cause.
// A step's cycle moves on at every use: from any start, its shapes are the runs' shapes in turn,
// and a cycle's length of uses meets every shape (red team 45b-08: a step that read its shape
// without counting wrapped every refusal of a run alike).
TEST(ErrorShapes, AShapeCycleMovesOnAtEveryUse) {
  for (std::uint64_t start = 0; start < kShapeCycle; ++start) {
    ShapeCycle cycle(start);
    std::set<ErrorShape> met;
    for (std::uint64_t i = 0; i < kShapeCycle; ++i) {
      const ErrorShape shape = cycle.next();
      EXPECT_EQ(shape, shape_of_run(start + i)) << "start " << start << ", use " << i;
      met.insert(shape);
    }
    EXPECT_EQ(met.size(), kErrorShapes) << "start " << start;
  }
}

TEST(ErrorShapes, TheNestedShapesNestTheRefusalWhereTheirNamesSay) {
  const std::exception_ptr refusal = std::make_exception_ptr(runtime::ExecutionFencedError(
      runtime::LeaseKey{"tenant-1", "order-1"}, 1, 2, "tenant-1:order-1"));
  bool own_step_error = false;
  try {
    std::rethrow_exception(wrap_refusal(ErrorShape::kNestedInStepError, refusal));
  } catch (const runtime::StepError& step) {
    const auto* nested = dynamic_cast<const std::nested_exception*>(&step);
    ASSERT_NE(nested, nullptr);
    EXPECT_EQ(nested->nested_ptr(), refusal);
    EXPECT_EQ(step.cause(), nullptr);
    own_step_error = true;
  } catch (...) {
  }
  EXPECT_TRUE(own_step_error) << "nested-in-step-error is not the runtime's StepError";
  bool outside = false;
  try {
    std::rethrow_exception(wrap_refusal(ErrorShape::kNestedException, refusal));
  } catch (const runtime::StepError& step) {
    EXPECT_EQ(dynamic_cast<const std::nested_exception*>(&step), nullptr);
    try {
      std::rethrow_exception(step.cause());
    } catch (const std::runtime_error& cause) {
      const auto* nested = dynamic_cast<const std::nested_exception*>(&cause);
      ASSERT_NE(nested, nullptr);
      EXPECT_EQ(nested->nested_ptr(), refusal);
      outside = true;
    } catch (...) {
    }
  } catch (...) {
  }
  EXPECT_TRUE(outside) << "nested-exception does not nest the refusal in its StepError's cause";
}

// Each shape outlines as written here from error_shapes.h's comments, by hand: seven different
// strings, so a mark made from the outline of what a workload threw says which shape it was.
TEST(ErrorShapes, EachShapeOutlinesAsItsCommentSays) {
  const std::map<ErrorShape, std::string> expected{
      {ErrorShape::kMemberCause, "A2.S.Sc.F"},     {ErrorShape::kAggregateCause, "A2c.S.S.F"},
      {ErrorShape::kNestedAggregate, "A2.S.A1.F"}, {ErrorShape::kNestedException, "Sc.Xn.F"},
      {ErrorShape::kDeepChain, "Sc.Sc.Sc.Sc.Sc.F"}, {ErrorShape::kBare, "F"},
      {ErrorShape::kNestedInStepError, "Sn.F"}};
  for (std::uint64_t i = 0; i < kErrorShapes; ++i) {
    const auto shape = static_cast<ErrorShape>(i);
    EXPECT_EQ(error_outline(wrap_refusal(shape, a_refusal().error)), expected.at(shape))
        << to_string(shape);
  }
  EXPECT_EQ(error_outline(nullptr), "");
  EXPECT_EQ(error_outline(std::make_exception_ptr(std::runtime_error("x"))), "X");
  EXPECT_EQ(error_outline(std::make_exception_ptr(42)), "X");
  // A chain deeper than any shape stops at depth 16 (a cycle of causes would never end): the
  // errors at depths 0..16 each outline, then "etc".
  std::exception_ptr chain = a_refusal().error;
  for (int depth = 0; depth < 20; ++depth) {
    chain = std::make_exception_ptr(runtime::StepError("charge failed", chain));
  }
  std::string cut;
  for (int depth = 0; depth <= 16; ++depth) cut += "Sc.";
  EXPECT_EQ(error_outline(chain), cut + "etc");
}

}  // namespace
}  // namespace fencesim::scenarios::error_shapes_test
