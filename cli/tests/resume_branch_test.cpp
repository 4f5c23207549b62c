// `fencesim sweep --resume` of a branching sweep (docs/explore.md, docs/reports.md "Interrupted
// sweeps"): what to run is the interrupted sweep's, its branching included, read from sweep.json's
// configuration. Before the branch options were recorded there, a resume took them from its own
// command line, where they are not given: the seeds it ran did not branch, and the finished
// sweep mixed branching and plain seeds under one configuration.
#include "cli/tests/sweep_fixture.h"

namespace fencesim::cli::testing::resume_branch_test {
namespace {

using nlohmann::json;

class ResumeBranchTest : public BinaryTest {
 protected:
  // The branch runs of `seed` in the folder's runs.jsonl.
  std::size_t branch_runs_of(const std::string& folder, std::uint64_t seed) {
    std::size_t count = 0;
    for (const json& run : runs(path(folder))) {
      count += run["seed"] == seed && run.contains("branch");
    }
    return count;
  }

  // Makes `folder` what a sweep stopped before `seed` leaves: marked interrupted with that seed
  // not run, and no record of it. (A real signal's timing would decide where it stops;
  // sweep_interrupt_test sends real ones.)
  void cut_before(const std::string& folder, std::uint64_t seed) {
    json manifest = read_json(path(folder + "/sweep.json"));
    manifest["interrupted"] = {{"signal", "SIGTERM"},
                               {"seeds_not_run", {{{"first", seed}, {"last", seed}, {"every", 1}}}},
                               {"budget_left_ms", nullptr}};
    write(folder + "/sweep.json", manifest.dump(2));
    for (const std::string name : {"/runs.jsonl", "/run_times.jsonl"}) {
      std::string kept;
      for (const std::string& line : read_lines(path(folder + name))) {
        if (json::parse(line)["seed"] != seed) kept += line + "\n";
      }
      write(folder + name, kept);
    }
  }
};

TEST_F(ResumeBranchTest, AResumedBranchingSweepBranchesAsItDid) {
  // Every seed of kleppmann-fencing refuses a stale write at least once (branch_sweep_test).
  const Result sweep = fencesim(
      "sweep --scenario kleppmann-fencing --seeds 1..2 --strategy random --jobs 1 "
      "--branch-at stale-write-refused --branches 2 --out cut");
  ASSERT_EQ(sweep.code, 0) << sweep.out << sweep.err;
  const std::size_t seed_2_branches = branch_runs_of("cut", 2);
  ASSERT_GE(seed_2_branches, 2u);
  cut_before("cut", 2);
  ASSERT_EQ(branch_runs_of("cut", 2), 0u);

  const Result resumed = fencesim("sweep --resume cut --jobs 1");
  ASSERT_EQ(resumed.code, 0) << resumed.out << resumed.err;
  EXPECT_NE(resumed.out.find(" branch-at=stale-write-refused branches=2 "), std::string::npos)
      << resumed.out;
  EXPECT_EQ(branch_runs_of("cut", 2), seed_2_branches);
  EXPECT_EQ(read_json(path("cut/sweep.json"))["configuration"]["branches"], 2);
}

// What to run comes from the interrupted sweep, branching included: a resume names neither.
TEST_F(ResumeBranchTest, AResumeTakesNoBranchOptions) {
  for (const std::string& option :
       {std::string("--branch-at stale-write-refused"), std::string("--branches 2")}) {
    const Result resumed = fencesim("sweep --resume out " + option);
    EXPECT_EQ(resumed.code, 2) << resumed.out << resumed.err;
    // Refused as an option --resume excludes, before the folder is looked at.
    EXPECT_NE(resumed.err.find(option.substr(0, option.find(' ')) + " excludes --resume"),
              std::string::npos)
        << resumed.err;
  }
}

}  // namespace
}  // namespace fencesim::cli::testing::resume_branch_test
