// A green night must prove what it claims: a sweep whose declared mark stays under its floor
// exits 6 with its own group in the console, summary.md, summary.json and junit.xml; one with too
// few runs to judge says so and passes; `fencesim run` says which declared marks its run reached.
#include <fmt/format.h>

#include "cli/tests/command_fixture.h"

namespace fencesim::cli::testing::claims_cli_test {
namespace {

using nlohmann::json;

// kleppmann-fencing's story (a holder stalled past its lease with a write in flight) never
// restarts a store: the declared store-restarted can never be reached.
const std::string kUnreachable = R"(name = "fencing-claims"
workload = "kleppmann-fencing"
marks = ["stale-write-refused", "store-restarted"]
)";

class ClaimsCliTest : public CommandTest {};

TEST_F(ClaimsCliTest, AMarkNeverReachedOverEnoughRunsFailsTheSweep) {
  write("claims.toml", kUnreachable);
  const CommandResult sweep = fencesim("sweep --spec claims.toml --seeds 1..20 --jobs 2 --out out");
  ASSERT_EQ(sweep.code, 6) << sweep.out << sweep.err;
  EXPECT_NE(sweep.out.find("UNPROVEN: 1 claim of this sweep not proven"), std::string::npos)
      << sweep.out;
  const std::string line = "mark store-restarted: 0 of 20 runs, floor reached at all";
  EXPECT_NE(sweep.out.find("  fencing-claims: " + line), std::string::npos) << sweep.out;
  // stale-write-refused met, and the story's stall acted: two claims met.
  EXPECT_NE(sweep.out.find("claims: 2 met, 1 unproven, 0 not judged"), std::string::npos)
      << sweep.out;

  const json summary = read_json("out/summary.json");
  ASSERT_EQ(summary["claims"]["missed"], 1);
  EXPECT_EQ(summary["claims"]["unproven"][0]["name"], "store-restarted");
  EXPECT_EQ(summary["claims"]["unproven"][0]["message"], line);
  EXPECT_EQ(summary["totals"]["failed"], 0);  // no run failed: the sweep itself did not prove
  EXPECT_TRUE(read("out/summary.md")
                  .starts_with("## fencesim sweep: no failure, but 1 claim not "
                               "proven\n"));
  const std::string junit = read("out/junit.xml");
  EXPECT_NE(junit.find("<failure message=\"" + line + "\" type=\"unproven\">"), std::string::npos)
      << junit;
  EXPECT_NE(read("out/report.html").find("\"unproven\""), std::string::npos);
  // sweep.json keeps the floors, so a merge of shards judges them again.
  EXPECT_EQ(read_json("out/sweep.json")["configuration"]["scenarios"][0]["marks"],
            json::array({"stale-write-refused", "store-restarted"}));
}

TEST_F(ClaimsCliTest, TooFewRunsAreReportedNotFailed) {
  write("claims.toml", kUnreachable);
  const CommandResult sweep = fencesim("sweep --spec claims.toml --seeds 1..5 --jobs 2 --out out");
  EXPECT_EQ(sweep.code, 0) << sweep.out << sweep.err;
  EXPECT_NE(sweep.out.find("not judged: 1 mark floor (too few runs):"), std::string::npos)
      << sweep.out;
  EXPECT_NE(sweep.out.find("(not enough runs to judge: 20 needed)"), std::string::npos);
  EXPECT_EQ(read_json("out/summary.json")["claims"]["not_enough_runs"], 1);
}

TEST_F(ClaimsCliTest, ShardsThatCannotJudgeAloneAreJudgedWhenMerged) {
  write("claims.toml", kUnreachable);
  for (int shard = 0; shard < 2; ++shard) {
    const CommandResult part =
        fencesim(fmt::format("sweep --spec claims.toml --seeds 1..24 --jobs 2 --shard {}/2 --out "
                             "out{}",
                             shard, shard));
    EXPECT_EQ(part.code, 0) << part.out << part.err;  // 12 runs each: not enough to judge
  }
  const CommandResult merged = fencesim("merge --out merged out0 out1");
  EXPECT_EQ(merged.code, 6) << merged.out << merged.err;
  EXPECT_NE(merged.out.find("mark store-restarted: 0 of 24 runs, floor reached at all"),
            std::string::npos)
      << merged.out;
}

TEST_F(ClaimsCliTest, ARateFloorIsMetAndAMissedOneNamed) {
  write("rates.toml", R"(name = "fencing-rates"
workload = "kleppmann-fencing"
marks = ["stale-write-refused >= 90%", "renewal-raced-expiry >= 50%"]
)");
  const CommandResult sweep = fencesim("sweep --spec rates.toml --seeds 1..20 --jobs 2 --out out");
  const json summary = read_json("out/summary.json");
  // The two marks, then the story's stall (a fault kind that must act when it can).
  ASSERT_EQ(summary["scenarios"][0]["claims"].size(), 3u) << sweep.out;
  EXPECT_EQ(summary["scenarios"][0]["claims"][2]["kind"], "fault");
  EXPECT_EQ(summary["scenarios"][0]["claims"][2]["name"], "stall");
  EXPECT_EQ(summary["scenarios"][0]["claims"][2]["status"], "met");
  const json& met = summary["scenarios"][0]["claims"][0];
  EXPECT_EQ(met["status"], "met") << met.dump();
  EXPECT_EQ(met["floor"], "90%");
  const json& missed = summary["scenarios"][0]["claims"][1];
  EXPECT_EQ(missed["status"], "missed") << missed.dump() << sweep.out;
  EXPECT_EQ(sweep.code, 6) << sweep.out << sweep.err;
}

TEST_F(ClaimsCliTest, ARunSaysWhichDeclaredMarksItReached) {
  write("claims.toml", kUnreachable);
  const CommandResult run = fencesim("run --spec claims.toml --seed 1");
  EXPECT_EQ(run.code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("declared marks: 1 of 2 reached: stale-write-refused=1; not reached: "
                         "store-restarted\n"),
            std::string::npos)
      << run.out;
  const CommandResult json_run = fencesim("run --spec claims.toml --seed 1 --json");
  const json report = json::parse(json_run.out.substr(json_run.out.find('{')));
  ASSERT_EQ(report["declared_marks"].size(), 2u) << json_run.out;
  EXPECT_EQ(report["declared_marks"][1]["mark"], "store-restarted");
  EXPECT_EQ(report["declared_marks"][1]["reached"], 0);
}

TEST_F(ClaimsCliTest, ABadFloorInASpecIsOneLine) {
  write("bad.toml", "name = \"x\"\nworkload = \"kleppmann-fencing\"\nmarks = [\"a >= 2\"]\n");
  const CommandResult run = fencesim("run --spec bad.toml --seed 1");
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err,
            "fencesim: bad.toml:3: marks: mark 'a >= 2': the floor after '>=' is a share of runs "
            "such as '2%' or '0.5%'\n");
}

}  // namespace
}  // namespace fencesim::cli::testing::claims_cli_test
