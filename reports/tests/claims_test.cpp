// A green sweep must prove what it claims: declared marks at their floors, fault kinds that acted
// when they could. Each verdict here is one a harness gone quiet would flip.
#include "reports/claims.h"

#include <gtest/gtest.h>

#include "reports/html_static.h"
#include "reports/junit.h"
#include "reports/summary.h"
#include "reports/summary_markdown.h"

namespace fencesim::reports::claims_test {
namespace {

RunRecord run(std::uint64_t seed, std::map<std::string, std::uint64_t> marks = {}) {
  RunRecord record;
  record.scenario = "story";
  record.strategy = "random";
  record.seed = seed;
  record.status = "pass";
  record.history_hash = fmt::format("{:016x}", seed);
  record.marks = std::move(marks);
  return record;
}

SweepConfig config(std::vector<scenarios::MarkFloor> marks) {
  SweepConfig config;
  config.scenarios = {SweptScenario{"story", "a story", std::move(marks)}};
  config.seeds_first = 1;
  config.seeds_last = 1;
  config.strategies = {"random"};
  return config;
}

const ClaimVerdict& only(const std::vector<ClaimVerdict>& claims) {
  EXPECT_EQ(claims.size(), 1u);
  return claims.front();
}

TEST(Claims, AMarkUnderItsFloorOverEnoughRunsIsMissed) {
  std::vector<RunRecord> records;
  for (std::uint64_t seed = 1; seed <= 1766; ++seed) {
    records.push_back(run(seed, {{"stale-write-refused", 1}}));
  }
  const ClaimVerdict claim = only(judge_claims(config({"takeover-mid-step >= 2%"}), records));
  EXPECT_EQ(claim.status, ClaimStatus::kMissed);
  EXPECT_EQ(claim.message(), "mark takeover-mid-step: 0 of 1,766 runs, floor 2%");
  EXPECT_EQ(count_missed({claim}), 1u);
}

TEST(Claims, AFloorIsCountedInRunsNotHits) {
  // One run reaching the mark 50 times is still one run of 100: under a 2% floor.
  std::vector<RunRecord> records;
  for (std::uint64_t seed = 1; seed <= 150; ++seed) records.push_back(run(seed));
  records[0].marks["takeover-mid-step"] = 50;
  EXPECT_EQ(only(judge_claims(config({"takeover-mid-step >= 2%"}), records)).status,
            ClaimStatus::kMissed);
  records[1].marks["takeover-mid-step"] = 1;
  records[2].marks["takeover-mid-step"] = 1;
  const ClaimVerdict met = only(judge_claims(config({"takeover-mid-step >= 2%"}), records));
  EXPECT_EQ(met.status, ClaimStatus::kMet);
  EXPECT_EQ(met.reached, 3u);
}

TEST(Claims, TooFewRunsAreNotJudgedButAReachedMarkIsMet) {
  std::vector<RunRecord> records;
  for (std::uint64_t seed = 1; seed <= 149; ++seed) records.push_back(run(seed));
  const ClaimVerdict claim = only(judge_claims(config({"takeover-mid-step >= 2%"}), records));
  EXPECT_EQ(claim.status, ClaimStatus::kNotEnoughRuns);
  EXPECT_EQ(claim.message(),
            "mark takeover-mid-step: 0 of 149 runs, floor 2% (not enough runs to judge: 150 "
            "needed)");
  records.push_back(run(150));
  EXPECT_EQ(only(judge_claims(config({"takeover-mid-step >= 2%"}), records)).status,
            ClaimStatus::kMissed);
  // "Reached at all" waits for kReachedAtAllRuns, and is met by the first run that reaches it.
  std::vector<RunRecord> few{run(1), run(2, {{"lease-yielded", 1}})};
  EXPECT_EQ(only(judge_claims(config({"lease-yielded"}), few)).status, ClaimStatus::kMet);
  few.pop_back();
  EXPECT_EQ(only(judge_claims(config({"lease-yielded"}), few)).status,
            ClaimStatus::kNotEnoughRuns);
}

// A scenario the sweep never ran (its budget spent first, or a shard without its runs) proves
// none of its floors: each is not judged, never met.
TEST(Claims, AScenarioWithNoRunMeetsNoFloor) {
  const std::vector<ClaimVerdict> claims =
      judge_claims(config({"takeover-mid-step >= 2%", "lease-yielded"}), {});
  ASSERT_EQ(claims.size(), 2u);
  for (const ClaimVerdict& claim : claims) {
    EXPECT_EQ(claim.runs, 0u) << claim.message();
    EXPECT_EQ(claim.status, ClaimStatus::kNotEnoughRuns) << claim.message();
  }
}

TEST(Claims, BranchRunsDoNotRaiseARate) {
  std::vector<RunRecord> records;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) records.push_back(run(seed));
  for (std::uint64_t number = 1; number <= 5; ++number) {
    RunRecord branch = run(1, {{"lease-yielded", 1}});
    branch.branch = BranchRecord{properties::BranchPoint{"x", 3, number}, {}, ""};
    records.push_back(branch);
  }
  const ClaimVerdict claim = only(judge_claims(config({"lease-yielded"}), records));
  EXPECT_EQ(claim.runs, 20u);
  EXPECT_EQ(claim.status, ClaimStatus::kMissed);
}

TEST(Claims, AFaultKindThatCouldActAndNeverDidIsMissed) {
  std::vector<RunRecord> records{run(1), run(2), run(3)};
  records[0].fault_effects["partition"] = {1, 0, 0};  // two nodes that never talked: no chance
  records[1].fault_effects["partition"] = {2, 2, 0};
  records[2].fault_effects["stall"] = {1, 1, 1};
  const std::vector<ClaimVerdict> claims = judge_claims(config({}), records);
  ASSERT_EQ(claims.size(), 2u);
  EXPECT_EQ(claims[0].name, "partition");
  EXPECT_EQ(claims[0].status, ClaimStatus::kMissed);
  EXPECT_EQ(claims[0].message(), "fault partition: acted 0 of the 2 times it could, in 2 runs");
  EXPECT_EQ(claims[1].name, "stall");
  EXPECT_EQ(claims[1].status, ClaimStatus::kMet);
  // Without a chance to act, a kind proves nothing either way: not a failure.
  records[1].fault_effects["partition"] = {2, 0, 0};
  EXPECT_EQ(count_missed(judge_claims(config({}), records)), 0u);
}

// One fault that could act once and did not is enough: a kind drawn rarely (one stall in a
// night, one partition of a link that talked once) is judged on the one chance it had.
TEST(Claims, AKindThatCouldActOnceAndDidNotIsMissed) {
  std::vector<RunRecord> records{run(1), run(2)};
  records[0].fault_effects["stall"] = {1, 1, 0};
  records[1].fault_effects["stall"] = {1, 0, 0};
  const std::vector<ClaimVerdict> claims = judge_claims(config({}), records);
  const ClaimVerdict& claim = only(claims);
  EXPECT_EQ(claim.status, ClaimStatus::kMissed) << claim.message();
  EXPECT_EQ(claim.message(), "fault stall: acted 0 of the 1 times it could, in 2 runs");
}

TEST(Claims, EveryReportShowsAMissedClaim) {
  std::vector<RunRecord> records;
  for (std::uint64_t seed = 1; seed <= 1766; ++seed) records.push_back(run(seed));
  SweepManifest manifest;
  manifest.fencesim_version = "test";
  manifest.configuration = config({"takeover-mid-step >= 2%", "lease-yielded"});
  manifest.shard_indices = {0};
  const nlohmann::ordered_json summary = sweep_summary(manifest, records, {});
  ASSERT_EQ(summary["claims"]["missed"], 2u);
  EXPECT_EQ(summary["claims"]["unproven"][0]["message"],
            "mark takeover-mid-step: 0 of 1,766 runs, floor 2%");
  EXPECT_EQ(summary["scenarios"][0]["claims"].size(), 2u);
  const std::string markdown = summary_markdown(summary);
  EXPECT_NE(markdown.find("## fencesim sweep: no failure, but 2 claims not proven"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("mark takeover-mid-step: 0 of 1,766 runs, floor 2%"), std::string::npos);
  const std::string junit = junit_xml(summary);
  EXPECT_NE(junit.find("<testsuite name=\"fencesim claims\" tests=\"2\" failures=\"2\""),
            std::string::npos)
      << junit;
  EXPECT_NE(junit.find("<failure message=\"mark takeover-mid-step: 0 of 1,766 runs, floor 2%\" "
                       "type=\"unproven\">"),
            std::string::npos);
  EXPECT_NE(junit.find("<testsuites name=\"fencesim\" tests=\"3\" failures=\"2\""),
            std::string::npos);
  // The page read with scripts off lists each claim not proven with its message (red team 33c:
  // its table listed only the claims not judged, under a heading counting the unproven ones).
  const std::string page = html::static_sweep(summary);
  EXPECT_NE(page.find("<h1>fencesim sweep: 2 claims not proven</h1>"), std::string::npos) << page;
  EXPECT_NE(page.find("mark takeover-mid-step: 0 of 1,766 runs, floor 2%"), std::string::npos)
      << page;
}

// A claim with too few runs to judge is neither met nor missed, and every report says so: the
// page read with scripts off lists it with its message and does not call every claim proven (red
// team 39b-44: its table left out the claims not judged, and a short sweep's page read "Every
// claim judged was proven" while summary.md and junit.xml listed them).
TEST(Claims, EveryReportShowsAClaimNotJudged) {
  std::vector<RunRecord> records;
  for (std::uint64_t seed = 1; seed <= 149; ++seed) records.push_back(run(seed));
  SweepManifest manifest;
  manifest.fencesim_version = "test";
  manifest.configuration = config({"takeover-mid-step >= 2%"});
  manifest.shard_indices = {0};
  const nlohmann::ordered_json summary = sweep_summary(manifest, records, {});
  ASSERT_EQ(summary["claims"]["missed"], 0u);
  ASSERT_EQ(summary["claims"]["not_judged"].size(), 1u) << summary["claims"].dump();
  const std::string message =
      "mark takeover-mid-step: 0 of 149 runs, floor 2% (not enough runs to judge: 150 needed)";
  EXPECT_NE(summary_markdown(summary).find(message), std::string::npos);
  const std::string page = html::static_sweep(summary);
  EXPECT_NE(page.find(message), std::string::npos) << page;
  EXPECT_EQ(page.find("Every claim judged was proven"), std::string::npos) << page;
}

TEST(Claims, ThousandsAreSeparated) {
  EXPECT_EQ(with_thousands(0), "0");
  EXPECT_EQ(with_thousands(999), "999");
  EXPECT_EQ(with_thousands(1000), "1,000");
  EXPECT_EQ(with_thousands(1234567), "1,234,567");
}

}  // namespace
}  // namespace fencesim::reports::claims_test
