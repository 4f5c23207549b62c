// The exit code of a sweep (and of a merge) whose runs failed in more than one way: the worst kind
// wins, in the order cli/sweep_output.h gives (harness error, nondeterminism, violation, liveness,
// then a missed claim). A CI that routes a night by its exit code (a violation to the runtime's
// owners, a liveness failure to whoever owns the scenario) must see the violation of a night that
// also had a liveness failure, whichever seed came first. The sweep tests each end with one kind
// of failure; this mixes them.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "cli/commands.h"
#include "cli/sweep_output.h"
#include "reports/signature.h"

namespace fencesim::cli::sweep_exit_code_test {
namespace {

reports::RunRecord run(std::uint64_t seed, const std::string& status) {
  reports::RunRecord record;
  record.scenario = "kleppmann-fencing";
  record.strategy = "random";
  record.seed = seed;
  record.status = status;
  record.history_hash = "00000000000000aa";
  if (status == "violation") {
    record.first_violation = reports::RecordedViolation{"sink-monotonicity", "token 1 after 2"};
    record.signature = "violation: sink-monotonicity";
  }
  if (status == "liveness") record.signature = "liveness: deadlock";
  if (status == "harness-error") record.signature = "harness: worker killed by signal 11";
  return record;
}

reports::RunRecord nondeterministic(std::uint64_t seed) {
  reports::RunRecord record = run(seed, "pass");
  record.rerun_history_hash = "00000000000000bb";
  return record;
}

// Every order of `records`: the code must not depend on which failure came first.
void expect_code(std::vector<reports::RunRecord> records, int expected, std::uint64_t missed = 0) {
  std::sort(records.begin(), records.end(),
            [](const auto& a, const auto& b) { return a.seed < b.seed; });
  do {
    std::string seeds;
    for (const auto& r : records) seeds += std::to_string(r.seed) + " ";
    EXPECT_EQ(sweep_exit_code(records, FailOn::kAny, nullptr, missed), expected)
        << "runs in the order of seeds " << seeds;
  } while (std::next_permutation(records.begin(), records.end(),
                                 [](const auto& a, const auto& b) { return a.seed < b.seed; }));
}

TEST(SweepExitCode, TheWorstKindOfFailureWinsWhateverTheOrder) {
  const reports::RunRecord pass = run(1, "pass");
  const reports::RunRecord violation = run(2, "violation");
  const reports::RunRecord liveness = run(3, "liveness");
  const reports::RunRecord harness = run(4, "harness-error");
  const reports::RunRecord differed = nondeterministic(5);

  expect_code({pass}, kExitPass);
  expect_code({pass, liveness}, kExitLiveness);
  expect_code({pass, violation, liveness}, kExitViolation);
  expect_code({violation, liveness, differed}, kExitNondeterminism);
  expect_code({violation, liveness, differed, harness}, kExitHarnessError);
  expect_code({liveness, harness}, kExitHarnessError);
  expect_code({liveness, differed}, kExitNondeterminism);
  // A missed claim fails a sweep whose runs all passed, and only such a sweep.
  expect_code({pass}, kExitUnproven, 1);
  expect_code({pass, liveness}, kExitLiveness, 1);
  expect_code({pass, violation}, kExitViolation, 1);
}

TEST(SweepExitCode, AKnownFailureIsForgivenOnlyUnderFailOnNew) {
  const reports::RunRecord violation = run(2, "violation");
  const reports::RunRecord liveness = run(3, "liveness");
  reports::KnownSignatures known;
  known.add(reports::KnownSignatures{{"night1"}, {reports::record_signature(violation)}});
  ASSERT_TRUE(known.contains(reports::record_signature(violation)));
  const std::vector<reports::RunRecord> both = {violation, liveness};
  // Under --fail-on new the known violation neither fails the sweep nor hides the new liveness.
  EXPECT_EQ(sweep_exit_code(both, FailOn::kNew, &known), kExitLiveness);
  EXPECT_EQ(sweep_exit_code(both, FailOn::kAny, &known), kExitViolation);
  EXPECT_EQ(sweep_exit_code({violation}, FailOn::kNew, &known), kExitPass);
  // A missed claim is the harness not testing: it fails the sweep whatever --fail-on says.
  EXPECT_EQ(sweep_exit_code({violation}, FailOn::kNew, &known, 1), kExitUnproven);
}

}  // namespace
}  // namespace fencesim::cli::sweep_exit_code_test
