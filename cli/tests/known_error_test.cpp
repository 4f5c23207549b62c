// A --known folder whose runs.jsonl cannot be read is bad input: one line naming it, exit 2 (not a
// harness error).
#include "cli/tests/sweep_fixture.h"

namespace fencesim::cli::testing::known_error_test {
namespace {

class KnownErrorTest : public BinaryTest {};

TEST_F(KnownErrorTest, AKnownOutputWhoseRunsCannotBeReadIsAUsageError) {
  write("earlier/runs.jsonl", "nonsense\n");
  expect_usage_error(
      fencesim("sweep --scenario kleppmann-fencing --seeds 1..1 --out out --known earlier"),
      "--known: earlier/runs.jsonl line 1: not JSON");
}

}  // namespace
}  // namespace fencesim::cli::testing::known_error_test
