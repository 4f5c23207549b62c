// `fencesim sweep --resume` of a branching sweep (docs/explore.md, docs/reports.md "Interrupted
// sweeps"): what to run is the interrupted sweep's, its branching included, read from sweep.json's
// configuration. Before the branch options were recorded there, a resume took them from its own
// command line, where they are not given: the seeds it ran did not branch, and the finished
// sweep mixed branching and plain seeds under one configuration.
#include <algorithm>
#include <set>

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

  // The branching sweep the tests cut short: kleppmann-fencing seeds 1..2 into "cut", two branches
  // at each stale write refused (every seed of it refuses one at least once: branch_sweep_test).
  Result branching_sweep() {
    return fencesim(
        "sweep --scenario kleppmann-fencing --seeds 1..2 --strategy random --jobs 1 "
        "--branch-at stale-write-refused --branches 2 --out cut");
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
  const Result sweep = branching_sweep();
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

// A branch run's record is kept when the branch ends, its parent's when the parent ends: a sweep
// stopped in between leaves branch runs of a seed it lists as not run. The resume runs that seed
// again, and it forks the same branches again; kept, the old branch records stood beside the new
// ones (each branch in runs.jsonl twice, counted twice in the summary, and a merge of the folder
// refused it: "branch ... is in two shards"). Only branch runs beside their parent's record stay.
TEST_F(ResumeBranchTest, AResumeDropsTheBranchRunsOfASeedItRunsAgain) {
  const Result sweep = branching_sweep();
  ASSERT_EQ(sweep.code, 0) << sweep.out << sweep.err;
  const std::size_t all_runs = runs(path("cut")).size();
  const std::size_t all_times = read_lines(path("cut/run_times.jsonl")).size();
  const std::size_t seed_2_branches = branch_runs_of("cut", 2);
  ASSERT_GE(seed_2_branches, 2u);

  // Stopped while seed 2's parent run was still going: its branches had ended and were kept, it
  // had not. (Its time is the seed's last line in run_times.jsonl: a parent ends after its
  // branches.)
  std::string branch_lines;
  for (const std::string& line : read_lines(path("cut/runs.jsonl"))) {
    const json run = json::parse(line);
    if (run["seed"] == 2 && run.contains("branch")) branch_lines += line + "\n";
  }
  std::vector<std::string> seed_2_times;
  for (const std::string& line : read_lines(path("cut/run_times.jsonl"))) {
    if (json::parse(line)["seed"] == 2) seed_2_times.push_back(line);
  }
  ASSERT_EQ(seed_2_times.size(), seed_2_branches + 1);
  seed_2_times.pop_back();
  cut_before("cut", 2);
  write("cut/runs.jsonl", read_text(path("cut/runs.jsonl")) + branch_lines);
  std::string times = read_text(path("cut/run_times.jsonl"));
  for (const std::string& line : seed_2_times) times += line + "\n";
  write("cut/run_times.jsonl", times);
  ASSERT_EQ(branch_runs_of("cut", 2), seed_2_branches);

  const Result resumed = fencesim("sweep --resume cut --jobs 1");
  ASSERT_EQ(resumed.code, 0) << resumed.out << resumed.err;
  // The runs of the uninterrupted sweep, each once: seed 2's branches as many as it made.
  EXPECT_EQ(branch_runs_of("cut", 2), seed_2_branches);
  std::set<std::string> seen;
  for (const json& run : runs(path("cut"))) {
    const std::string key = run["seed"].dump() + " " + run.value("branch", json()).dump();
    EXPECT_TRUE(seen.insert(key).second) << "twice in runs.jsonl: " << key;
  }
  EXPECT_EQ(seen.size(), all_runs);
  EXPECT_EQ(read_lines(path("cut/run_times.jsonl")).size(), all_times);
  EXPECT_EQ(read_json(path("cut/summary.json"))["totals"]["runs"], all_runs);
  // And the folder merges as the one shard it is.
  const Result merged = fencesim("merge --out merged cut");
  EXPECT_EQ(merged.code, 0) << merged.out << merged.err;
}

// An interrupted branching sweep whose sweep.json predates the branch options reads as plain: a
// resume would run its other seeds without branching, under one configuration. Its runs.jsonl holds
// branch runs; the resume refuses it, since how it branched is not known.
TEST_F(ResumeBranchTest, AnOldBranchingSweepIsNotResumedAsAPlainOne) {
  const Result sweep = branching_sweep();
  ASSERT_EQ(sweep.code, 0) << sweep.out << sweep.err;
  cut_before("cut", 2);
  ASSERT_GE(branch_runs_of("cut", 1), 1u);
  forget_branch_options("cut");
  const Result resumed = fencesim("sweep --resume cut --jobs 1");
  EXPECT_EQ(resumed.code, 2) << resumed.out << resumed.err;
  EXPECT_EQ(resumed.out, "");
  EXPECT_TRUE(
      resumed.err.starts_with("fencesim: --resume: 'cut' holds branch runs (kleppmann-fencing seed "
                              "1 branch stale-write-refused:"))
      << resumed.err;
  EXPECT_TRUE(resumed.err.ends_with(
      ") but its sweep.json records no --branch-at (written before the branch options were): how "
      "it branched is not known, so sweep it again\n"))
      << resumed.err;
  EXPECT_EQ(std::count(resumed.err.begin(), resumed.err.end(), '\n'), 1);
  // Nothing ran: seed 2 is still not run.
  EXPECT_EQ(branch_runs_of("cut", 2), 0u);
}

// sweep.json is a file a person may edit: a resume holds its branch count to what --branches
// accepts (1..64), as each hit forks that many processes.
TEST_F(ResumeBranchTest, AResumeRefusesMoreBranchesThanASweepMakes) {
  const Result sweep = branching_sweep();
  ASSERT_EQ(sweep.code, 0) << sweep.out << sweep.err;
  cut_before("cut", 2);
  json edited = read_json(path("cut/sweep.json"));
  edited["configuration"]["branches"] = 1000;
  write("cut/sweep.json", edited.dump(2));
  const Result resumed = fencesim("sweep --resume cut --jobs 1");
  EXPECT_EQ(resumed.code, 2) << resumed.out << resumed.err;
  EXPECT_EQ(resumed.out, "");
  EXPECT_EQ(resumed.err,
            "fencesim: --resume: 'cut/sweep.json' asks for 1000 branches a hit; a sweep makes "
            "1..64 (--branches)\n");
  EXPECT_EQ(branch_runs_of("cut", 2), 0u) << "nothing ran";
}

// A mark edited into sweep.json is checked as --branch-at checks it: a mark nobody reaches would
// resume a branching sweep that never branches, and it would end green.
TEST_F(ResumeBranchTest, AResumeRefusesAMarkNobodyNames) {
  const Result sweep = branching_sweep();
  ASSERT_EQ(sweep.code, 0) << sweep.out << sweep.err;
  cut_before("cut", 2);
  json edited = read_json(path("cut/sweep.json"));
  edited["configuration"]["branch_at"] = json::array({"stale-write-refused", "no-such-mark"});
  write("cut/sweep.json", edited.dump(2));
  const Result resumed = fencesim("sweep --resume cut --jobs 1");
  EXPECT_EQ(resumed.code, 2) << resumed.out << resumed.err;
  EXPECT_EQ(resumed.out, "");
  EXPECT_TRUE(resumed.err.starts_with(
      "fencesim: --resume: 'cut/sweep.json': --branch-at: unknown mark 'no-such-mark'"))
      << resumed.err;
  EXPECT_EQ(std::count(resumed.err.begin(), resumed.err.end(), '\n'), 1) << resumed.err;
  EXPECT_EQ(branch_runs_of("cut", 2), 0u) << "nothing ran";
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
