// fork_branches (cli/sweep_branch.h) in this process, at a real mark of a real run: a branch that
// ends without answering is reported lost with how it ended, whether a signal ended it or an exit
// code. A sanitizer's report ends a process with exit code 1, not a signal (ASan's and UBSan's
// default exitcode), so a branch that a sanitizer stopped is lost only if a non-zero exit counts.
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <string>
#include <utility>
#include <vector>

#include "cli/sweep_branch.h"
#include "properties/marks.h"
#include "properties/run.h"
#include "scenarios/scenario.h"

namespace fencesim::cli::branch_fork_test {
namespace {

TEST(ForkBranches, ABranchThatEndsWithAnExitCodeOrASignalIsLostAndOneThatAnsweredIsNot) {
  const scenarios::ScenarioRegistry registry = scenarios::builtin_scenarios();
  properties::RunRequest request;
  request.scenario = "kleppmann-fencing";
  request.seed = 1;
  request.branch_marks = {"stale-write-refused"};
  std::vector<std::pair<std::uint64_t, std::string>> lost;
  bool forked = false;
  request.on_branch_mark = [&](sim::World& world, const properties::PlacedMark& mark) {
    if (forked) return;  // the first hit only
    forked = true;
    const std::optional<BranchChild> child =
        fork_branches(world, request.seed, mark, 3,
                      [&](const properties::BranchPoint& at, const std::string& how) {
                        lost.emplace_back(at.number, how);
                      });
    if (!child) return;
    // In a branch: 1 ends as a sanitizer ends a process, 2 as a branch that answered, 3 by a
    // signal. None runs on (nothing of this test's process is run twice).
    if (child->at.number == 1) _exit(1);
    if (child->at.number == 2) _exit(0);
    ::kill(::getpid(), SIGKILL);
    _exit(0);  // not reached
  };
  const properties::RunReport report = properties::run_scenario(registry, request);
  ASSERT_TRUE(forked) << "kleppmann-fencing seed 1 refuses a stale write";
  EXPECT_EQ(report.status, properties::RunStatus::kPass);
  ASSERT_EQ(lost.size(), 2u);
  EXPECT_EQ(lost[0], std::make_pair(std::uint64_t{1}, std::string("exited with code 1")));
  EXPECT_EQ(lost[1].first, 3u);
  EXPECT_TRUE(lost[1].second.starts_with("killed by signal 9")) << lost[1].second;
}

}  // namespace
}  // namespace fencesim::cli::branch_fork_test
