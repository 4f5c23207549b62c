// The workload's own walk of a caught error (for_each_error, scenarios/workload.h): what a body
// records of the errors it caught is what the error-code oracles judge, so an error the walk
// skips is an error no oracle ever sees. Each test builds its chain and reads the walk's order.
#include <gtest/gtest.h>

#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/errors.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios::error_walk_test {
namespace {

std::vector<std::string> walked(const std::exception_ptr& error) {
  std::vector<std::string> order;
  for_each_error(error, [&order](const std::exception_ptr&, const std::exception& thrown) {
    order.emplace_back(thrown.what());
  });
  return order;
}

std::exception_ptr plain(const std::string& what) {
  return std::make_exception_ptr(std::runtime_error(what));
}

// An AggregateError's members first, in order, then its own cause (red team 35b-06: the cause
// of an aggregate was skipped, members only).
TEST(ErrorWalk, AnAggregatesMembersThenItsOwnCause) {
  const auto error = std::make_exception_ptr(runtime::AggregateError(
      {plain("first"), plain("second")}, "aggregate", plain("aggregate's cause")));
  EXPECT_EQ(walked(error),
            (std::vector<std::string>{"aggregate", "first", "second", "aggregate's cause"}));
}

TEST(ErrorWalk, ACauseChainAndANestedExceptionAreWalkedDepthFirst) {
  std::exception_ptr nested;
  try {
    try {
      throw std::runtime_error("inner");
    } catch (...) {
      std::throw_with_nested(std::runtime_error("outer"));
    }
  } catch (...) {
    nested = std::current_exception();
  }
  const auto error = std::make_exception_ptr(runtime::StepError(
      "step", std::make_exception_ptr(runtime::ExecutionError("middle", nested))));
  EXPECT_EQ(walked(error), (std::vector<std::string>{"step", "middle", "outer", "inner"}));
}

TEST(ErrorWalk, AnErrorSharedByTwoMembersIsVisitedOnce) {
  const std::exception_ptr shared = plain("shared");
  const auto error = std::make_exception_ptr(
      runtime::AggregateError({shared, std::make_exception_ptr(runtime::ExecutionError(
                                           "wrapper", shared))},
                              "aggregate"));
  EXPECT_EQ(walked(error), (std::vector<std::string>{"aggregate", "shared", "wrapper"}));
}

}  // namespace
}  // namespace fencesim::scenarios::error_walk_test
