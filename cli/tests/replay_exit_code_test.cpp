// `fencesim replay FILE`'s exit code (docs/replay-files.md, "Exit codes of replay"): the run's own
// code only when the replay is the recorded run (same status, same history hash), and 4 when it is
// not, whatever the run's status, for a plain file and a sweep's branch file (schema 3, `branch`)
// alike. A recorded failure that now passes, or a branch whose history moved, must not exit 0: a
// script, or a person reading $?, would take a run that is not the one on file for "all is well".
#include <functional>

#include "cli/tests/sweep_fixture.h"

namespace fencesim::cli::testing::replay_exit_code_test {
namespace {

using nlohmann::json;

class ReplayExitCodeTest : public BinaryTest {
 protected:
  // A passing branch's replay file: kleppmann-fencing seed 1 refuses a stale write, and its one
  // branch there passes (branch_sweep_test).
  std::string branch_file() {
    const Result sweep = fencesim(
        "sweep --scenario kleppmann-fencing --seeds 1..1 --strategy random --jobs 1 --out out "
        "--branch-at stale-write-refused --branches 1");
    EXPECT_EQ(sweep.code, 0) << sweep.out << sweep.err;
    for (const json& run : runs(path("out"))) {
      if (run.contains("branch")) return "out/" + run["branch"]["replay"].get<std::string>();
    }
    ADD_FAILURE() << "no branch run in " << sweep.out;
    return "";
  }

  void edit(const std::string& file, const std::function<void(json&)>& change) {
    json content = read_json(path(file));
    change(content);
    write(file, content.dump(2));
  }
};

TEST_F(ReplayExitCodeTest, ABranchFileWhoseReplayIsNotTheRecordedRunExits4) {
  const std::string file = branch_file();
  ASSERT_FALSE(file.empty());
  ASSERT_TRUE(read_json(path(file)).contains("branch"));
  const std::string recorded = read_json(path(file))["expected_history_hash"];
  // The control: the branch as recorded replays, passes, exits 0.
  const Result same = fencesim("replay " + file);
  ASSERT_EQ(same.code, 0) << same.out << same.err;
  EXPECT_NE(same.out.find("replay matches"), std::string::npos) << same.out;

  // Another history recorded: the run made now is not it.
  edit(file, [](json& f) { f["expected_history_hash"] = "0123456789abcdef"; });
  const Result moved = fencesim("replay " + file);
  EXPECT_EQ(moved.code, 4) << moved.out << moved.err;
  EXPECT_NE(moved.err.find("replay DIFFERS from " + file + ": history hash"), std::string::npos)
      << moved.err;

  // A failure recorded, a pass now (the same history, judged a pass): not reproduced.
  edit(file, [&](json& f) {
    f["expected_history_hash"] = recorded;
    f["expected_status"] = "violation";
    f["violations"] = json::array({{{"invariant", "sink-monotonicity"}, {"message", "m"}}});
  });
  const Result fixed = fencesim("replay " + file);
  EXPECT_EQ(fixed.code, 4) << fixed.out << fixed.err;
  EXPECT_NE(fixed.err.find("status pass but the file recorded violation"), std::string::npos)
      << fixed.err;
}

TEST_F(ReplayExitCodeTest, APlainFileThatNoLongerFailsExits4) {
  const Result run = fencesim(
      "run --scenario kleppmann-fencing --seed 1 --sink-double accept-stale --replay-out x.json");
  ASSERT_EQ(run.code, 1) << run.err;
  const Result same = fencesim("replay x.json");
  EXPECT_EQ(same.code, 1) << same.out << same.err;  // the failure, bit for bit
  // The runtime's own sink refuses the stale token: the run passes, the file recorded a violation.
  edit("x.json", [](json& f) { f["sink_double"] = ""; });
  const Result fixed = fencesim("replay --json x.json");
  EXPECT_EQ(fixed.code, 4) << fixed.out << fixed.err;
  const json report = json::parse(fixed.out);
  EXPECT_EQ(report["status"], "pass");
  EXPECT_EQ(report["replay"]["matches"], false);
}

// No file records a run that threw, so a replay whose run now throws out of the harness is not the
// run on file: exit 4 with the error in its one line, not the harness error's 5 (a script reading
// 5 would take the file for a recorded harness error).
TEST_F(ReplayExitCodeTest, AFileWhoseRunNowThrowsExits4) {
  const Result run = fencesim(
      "run --scenario kleppmann-fencing --seed 1 --sink-double accept-stale --replay-out x.json");
  ASSERT_EQ(run.code, 1) << run.err;
  // A plan naming a node the scenario does not have: the world refuses it as it is built.
  edit("x.json", [](json& f) { f["fault_plan"][0]["node"] = "nobody"; });
  const Result threw = fencesim("replay x.json");
  EXPECT_EQ(threw.code, 4) << threw.out << threw.err;
  EXPECT_NE(threw.err.find("replay DIFFERS from x.json: the run ended in a harness error"),
            std::string::npos)
      << threw.err;
  EXPECT_NE(threw.err.find("unknown node 'nobody'"), std::string::npos) << threw.err;
  EXPECT_NE(threw.err.find("the file recorded status violation"), std::string::npos) << threw.err;
  const Result as_json = fencesim("replay --json x.json");
  EXPECT_EQ(as_json.code, 4) << as_json.out << as_json.err;
  const json report = json::parse(as_json.out);
  EXPECT_EQ(report["status"], "harness-error");
  EXPECT_EQ(report["replay"]["matches"], false);
}

}  // namespace
}  // namespace fencesim::cli::testing::replay_exit_code_test
