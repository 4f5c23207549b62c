// When two runs of one request agree (properties::runs_agree, what check-determinism asks): the
// same history and the same verdict. Equal histories judged two ways are an oracle's
// nondeterminism (an order of an unordered container reaching a verdict), which a check of the
// hashes alone calls deterministic (red team 35d-07).
#include <gtest/gtest.h>

#include "properties/run.h"

namespace fencesim::properties::runs_agree_test {
namespace {

RunReport report(std::uint64_t hash, RunStatus status, std::vector<std::string> invariants = {}) {
  RunReport r;
  r.history_hash = hash;
  r.status = status;
  for (std::string& invariant : invariants) {
    Violation v;
    v.invariant = std::move(invariant);
    r.violations.push_back(std::move(v));
  }
  return r;
}

TEST(RunsAgree, OnlyTheSameHistoryJudgedTheSameWay) {
  EXPECT_TRUE(runs_agree(report(7, RunStatus::kPass), report(7, RunStatus::kPass)));
  EXPECT_TRUE(runs_agree(report(7, RunStatus::kViolation, {"exactly-once"}),
                         report(7, RunStatus::kViolation, {"exactly-once"})));
  EXPECT_FALSE(runs_agree(report(7, RunStatus::kPass), report(8, RunStatus::kPass)));
  EXPECT_FALSE(runs_agree(report(7, RunStatus::kPass), report(7, RunStatus::kViolation)));
  EXPECT_FALSE(runs_agree(report(7, RunStatus::kViolation, {"exactly-once"}),
                          report(7, RunStatus::kViolation, {"safe-yield"})));
  EXPECT_FALSE(runs_agree(report(7, RunStatus::kViolation, {"exactly-once"}),
                          report(7, RunStatus::kViolation, {"exactly-once", "safe-yield"})));
}

}  // namespace
}  // namespace fencesim::properties::runs_agree_test
