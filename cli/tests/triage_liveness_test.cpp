// Liveness failures and hangs told apart (issue 28): two different planted liveness bugs are two
// failure groups, each named by what its run was stuck on, and a night that knows one reports the
// other as new under --fail-on new; a run that hangs past --run-timeout is named by the kinds of
// its last events. The planted bugs: scenarios/planted_bugs.cpp.
#include <set>

#include "cli/tests/sweep_fixture.h"

namespace fencesim::cli::testing::triage_liveness_test {
namespace {

using nlohmann::json;

constexpr const char* kPlanted = "FENCESIM_TEST_PLANTED_BUGS=1 ";

class TriageLivenessTest : public BinaryTest {
 protected:
  Result sweep(const std::string& scenarios, const std::string& seeds, const std::string& out,
               const std::string& extra = "") const {
    return fencesim("sweep " + scenarios + " --seeds " + seeds + " --jobs 2 --out " + out + " " +
                        extra,
                    kPlanted);
  }
  json groups(const std::string& out) const {
    return read_json(path(out + "/summary.json"))["groups"];
  }
};

TEST_F(TriageLivenessTest, TwoLivenessBugsNeverShareASignature) {
  const Result lost = sweep("--scenario planted-lost-wakeup", "1..3", "night1");
  ASSERT_EQ(lost.code, 3) << lost.out << lost.err;
  const json first = groups("night1");
  ASSERT_EQ(first.size(), 1u) << first.dump(2);
  const std::string lost_signature = first[0]["signature"];
  // What it was stuck on, in the signature: the tree with its lease held and its step running.
  EXPECT_TRUE(lost_signature.starts_with("liveness: time-reached: tree: ")) << lost_signature;
  EXPECT_NE(lost_signature.find("lease held"), std::string::npos) << lost_signature;
  EXPECT_NE(lost_signature.find("last step-started"), std::string::npos) << lost_signature;

  // Both bugs in one night: two groups, the known one and the new one.
  const Result both = sweep("--scenario planted-lost-wakeup --scenario planted-failing-step", "4..6",
                            "night2", "--known night1 --fail-on new");
  ASSERT_EQ(both.code, 3) << both.out << both.err;  // the new liveness bug fails the night
  const json found = groups("night2");
  ASSERT_EQ(found.size(), 2u) << found.dump(2);
  std::set<std::string> signatures;
  for (const json& group : found) {
    signatures.insert(group["signature"].get<std::string>());
    const bool failing_step = group["scenarios"] == json::array({"planted-failing-step"});
    EXPECT_EQ(group["known"], !failing_step) << group.dump(2);
    EXPECT_EQ(group["kind"], "liveness") << group.dump(2);
  }
  EXPECT_EQ(signatures.size(), 2u);
  EXPECT_TRUE(signatures.contains(lost_signature));
  EXPECT_NE(both.out.find("failure groups: 2 distinct (1 new, 1 known)"), std::string::npos)
      << both.out;

  // A night of only the known liveness bug passes under --fail-on new.
  const Result known = sweep("--scenario planted-lost-wakeup", "7..8", "night3",
                             "--known night1 --fail-on new");
  EXPECT_EQ(known.code, 0) << known.out << known.err;
}

// `fencesim run` keeps every failure, not only a violation: a liveness failure writes its replay
// file, says how to replay it first, and the file replays to the same liveness failure.
TEST_F(TriageLivenessTest, ARunThatFailsLivenessWritesItsReplayFile) {
  const Result run =
      fencesim("run --scenario planted-lost-wakeup --seed 1 --replay-out stuck.json", kPlanted);
  ASSERT_EQ(run.code, 3) << run.out << run.err;
  EXPECT_TRUE(run.out.starts_with("fencesim replay stuck.json\n")) << run.out;
  ASSERT_TRUE(fs::exists(path("stuck.json"))) << run.out;
  const json file = read_json(path("stuck.json"));
  EXPECT_EQ(file["expected_status"], "liveness");
  EXPECT_EQ(file["scenario"], "planted-lost-wakeup");
  const Result replay = fencesim("replay stuck.json", kPlanted);
  EXPECT_EQ(replay.code, 3) << replay.out << replay.err;
}

TEST_F(TriageLivenessTest, AHangIsNamedByItsLastEvents) {
  const Result hang = sweep("--scenario planted-spin", "1..2", "out", "--run-timeout 1s");
  ASSERT_EQ(hang.code, 5) << hang.out << hang.err;
  const json found = groups("out");
  ASSERT_EQ(found.size(), 1u) << found.dump(2);
  const std::string signature = found[0]["signature"];
  // The spinning step began and nothing happened after: the run stopped at its step's start.
  EXPECT_TRUE(signature.starts_with("harness: worker exceeded --run-timeout after "))
      << signature;
  EXPECT_TRUE(signature.ends_with("step-started")) << signature;
  // The whole ring in the run's detail, oldest first, the spinning step's start last.
  EXPECT_NE(hang.out.find("and was killed while running this seed; last events (oldest first): "),
            std::string::npos)
      << hang.out;
}

}  // namespace
}  // namespace fencesim::cli::testing::triage_liveness_test
