// What a sweep says while it runs (cli/sweep_progress.h): the progress line counts every run that
// did not pass as a failure, whatever its status (a liveness failure or a harness error names no
// invariant), as the closing summary does.
#include "cli/sweep_progress.h"

#include <gtest/gtest.h>

#include <chrono>
#include <sstream>

namespace fencesim::cli::sweep_progress_test {
namespace {

reports::RunRecord record(std::uint64_t seed, const std::string& status) {
  reports::RunRecord made;
  made.scenario = "a";
  made.strategy = "random";
  made.seed = seed;
  made.status = status;
  return made;
}

TEST(SweepProgress, EveryRunThatDidNotPassIsAFailureOfTheProgressLine) {
  SweepPlan plan;
  plan.config.scenarios = {{"a", "", {}}};
  plan.config.strategies = {"random"};
  plan.config.seeds_first = 1;
  plan.config.seeds_last = 4;
  plan.progress_every_seconds = 10;
  std::ostringstream out;
  const SweepProgress::Clock::time_point start{};
  SweepProgress progress(out, /*terminal=*/false, plan, 4, start);
  progress.run_done(record(1, "pass"));
  progress.run_done(record(2, "liveness"));
  progress.run_done(record(3, "harness-error"));
  progress.tick(start + std::chrono::seconds(10));
  EXPECT_NE(out.str().find("] 3/4 runs (0/s), 2 failures, marks 0/0"), std::string::npos)
      << out.str();
}

}  // namespace
// The progress line's times: seconds under a minute, minutes and seconds under an hour, hours and
// minutes from the hour on, rounded to the second (red team 39d-16 wrote an hour as "60m00s").
TEST(SweepProgress, ADurationIsWrittenInTheLargestUnitsItReaches) {
  EXPECT_EQ(format_duration(0), "0s");
  EXPECT_EQ(format_duration(59.4), "59s");
  EXPECT_EQ(format_duration(59.6), "1m00s");
  EXPECT_EQ(format_duration(61), "1m01s");
  EXPECT_EQ(format_duration(3599), "59m59s");
  EXPECT_EQ(format_duration(3600), "1h00m");
  EXPECT_EQ(format_duration(3660), "1h01m");
  EXPECT_EQ(format_duration(-5), "0s");
}

}  // namespace fencesim::cli::sweep_progress_test
