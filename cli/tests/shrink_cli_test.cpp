// `fencesim shrink FILE`: a replay file of a broken-sink failure with irrelevant faults added
// shrinks to the one stall that matters, says what it removed, and the shrunk file replays the
// same failure. A file that no longer fails, and bad options, are exit 2 with one line.
#include "cli/tests/command_fixture.h"

namespace fencesim::cli::testing::shrink_cli_test {
namespace {

using nlohmann::json;

class ShrinkCliTest : public CommandTest {
 protected:
  // kleppmann-fencing seed 1 with a stale-accepting sink (a sink-monotonicity violation), with
  // two faults added before and after its stall that have nothing to do with it.
  void write_padded_failure(const std::string& name) {
    const CommandResult run = fencesim(
        "run --scenario kleppmann-fencing --seed 1 --sink-double accept-stale --replay-out "
        "base.json");
    ASSERT_EQ(run.code, 1) << run.err;
    json file = read_json("base.json");
    ASSERT_EQ(file["fault_plan"].size(), 1u);
    file["fault_plan"].insert(file["fault_plan"].begin(), json{{"kind", "network-delay"},
                                                               {"node", "payments"},
                                                               {"at_ns", 80'000'000'000},
                                                               {"duration_ns", 4'000'000'000},
                                                               {"amount", 20'000'000}});
    file["fault_plan"].push_back(json{{"kind", "stall"},
                                      {"node", "instance-2"},
                                      {"at_ns", 88'000'000'000},
                                      {"duration_ns", 1'000'000'000}});
    write_json(name, file);
  }
};

TEST_F(ShrinkCliTest, ShrinksToTheFaultThatMattersAndTheResultReplays) {
  write_padded_failure("padded.json");
  const CommandResult shrink = fencesim("shrink padded.json");
  ASSERT_EQ(shrink.code, 0) << shrink.out << shrink.err;
  EXPECT_EQ(shrink.out.substr(0, shrink.out.find('\n')), "fencesim replay padded.shrunk.json");
  EXPECT_NE(shrink.out.find("  removed fault 1: network-delay payments"), std::string::npos)
      << shrink.out;
  EXPECT_NE(shrink.out.find("  removed fault 3: stall instance-2"), std::string::npos)
      << shrink.out;
  EXPECT_EQ(shrink.out.find("removed fault 2"), std::string::npos) << shrink.out;
  EXPECT_NE(shrink.out.find("faults: 3 -> 1 ("), std::string::npos) << shrink.out;
  EXPECT_NE(shrink.out.find("still fails: violation (sink-monotonicity)"), std::string::npos)
      << shrink.out;

  const json shrunk = read_json("padded.shrunk.json");
  ASSERT_EQ(shrunk["fault_plan"].size(), 1u);
  EXPECT_EQ(shrunk["fault_plan"][0]["kind"], "stall");
  EXPECT_EQ(shrunk["fault_plan"][0]["node"], "instance-1");
  EXPECT_EQ(shrunk["violations"][0]["invariant"], "sink-monotonicity");
  const CommandResult replay = fencesim("replay padded.shrunk.json");
  EXPECT_EQ(replay.code, 1);
  EXPECT_NE(replay.out.find("replay matches padded.shrunk.json"), std::string::npos) << replay.out;

  // Deterministic: shrinking again writes the same file.
  ASSERT_EQ(fencesim("shrink padded.json --out again.json").code, 0);
  EXPECT_EQ(read("again.json"), read("padded.shrunk.json"));
}

TEST_F(ShrinkCliTest, TheRunBudgetIsHeld) {
  write_padded_failure("padded.json");
  const CommandResult shrink = fencesim("shrink padded.json --max-runs 2 --out small.json");
  ASSERT_EQ(shrink.code, 0) << shrink.err;
  EXPECT_NE(shrink.out.find(" (2 runs)"), std::string::npos) << shrink.out;
  EXPECT_EQ(shrink.err,
            "fencesim: shrinking stopped at --max-runs 2: the plan may shrink further with a "
            "larger budget\n");
  EXPECT_EQ(fencesim("replay small.json").code, 1);
}

TEST_F(ShrinkCliTest, AFileThatNoLongerFailsCannotBeShrunk) {
  write_padded_failure("padded.json");
  json file = read_json("padded.json");
  file["sink_double"] = "";  // the bug is gone: the run passes
  write_json("fixed.json", file);
  expect_usage_error(fencesim("shrink fixed.json"),
                     "fencesim: replay file 'fixed.json' no longer fails as recorded (recorded "
                     "violation (sink-monotonicity), now pass): nothing to shrink");
  EXPECT_FALSE(exists("fixed.shrunk.json"));
}

TEST_F(ShrinkCliTest, BadInputIsOneLine) {
  write_padded_failure("padded.json");
  expect_usage_error(fencesim("shrink padded.json --max-runs 0"),
                     "fencesim: --max-runs: must be at least 1");
  expect_usage_error(fencesim("shrink padded.json --max-runs lots"),
                     "fencesim: --max-runs: 'lots' is not an unsigned 64-bit integer");
  expect_usage_error(fencesim("shrink padded.json --out padded.json"),
                     "fencesim: --out: 'padded.json' is the replay file being shrunk");
  expect_usage_error(fencesim("shrink nope.json"), "fencesim: replay file 'nope.json' not found");
  write("corrupt.json", "{\"format\": ");
  expect_usage_error(fencesim("shrink corrupt.json"),
                     "fencesim: replay file 'corrupt.json' is not JSON");
  expect_usage_error(fencesim("shrink padded.json --out no/such/dir/x.json"),
                     "fencesim: cannot write replay file 'no/such/dir/x.json'");
  // The input is still there, untouched.
  EXPECT_EQ(read_json("padded.json")["fault_plan"].size(), 3u);
}

}  // namespace
}  // namespace fencesim::cli::testing::shrink_cli_test
