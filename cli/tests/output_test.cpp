// The command a person copies to see a failure again (cli/output.h, replay_command): a path a POSIX
// shell would split or expand is quoted, so that the line runs as printed (a sweep's --out folder
// may hold a space: "nightly runs/failures/...").
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "cli/output.h"

namespace fencesim::cli::output_test {
namespace {

TEST(ReplayCommand, APlainPathIsPrintedAsItIs) {
  EXPECT_EQ(replay_command("out/failures/kleppmann-fencing-random-1.replay.json"),
            "fencesim replay out/failures/kleppmann-fencing-random-1.replay.json");
}

TEST(ReplayCommand, APathTheShellWouldSplitOrExpandIsQuoted) {
  EXPECT_EQ(replay_command("nightly runs/failures/a-random-1.replay.json"),
            "fencesim replay 'nightly runs/failures/a-random-1.replay.json'");
  EXPECT_EQ(replay_command("out\tx/a.json"), "fencesim replay 'out\tx/a.json'");
  EXPECT_EQ(replay_command("$HOME/a.json"), "fencesim replay '$HOME/a.json'");
  EXPECT_EQ(replay_command("bob's/a.json"), "fencesim replay 'bob'\\''s/a.json'");
}

// `fencesim run --json`: the replay file written for a failure is named, and null when none was.
TEST(RunJson, NamesTheReplayFileWrittenAndNullWhenNone) {
  TimedRun run;
  run.report.request.scenario = "kleppmann-fencing";
  EXPECT_EQ(run_json(run, "fencesim-replay-kleppmann-fencing-1.json")["replay_file"],
            "fencesim-replay-kleppmann-fencing-1.json");
  EXPECT_TRUE(run_json(run, "")["replay_file"].is_null());
}

// A declared mark counts as reached by its count, not by its name's presence: a mark counted
// zero times was not reached (red team 40a-09: "declared marks" counted it).
TEST(RunSummary, ADeclaredMarkCountedZeroTimesIsNotReached) {
  TimedRun run;
  run.report.request.scenario = "kleppmann-fencing";
  run.report.marks = {{"stale-write-refused", 0}, {"takeover-mid-step", 2}};
  run.report.declared_marks = {"stale-write-refused >= 95%", "takeover-mid-step >= 95%"};
  std::ostringstream out;
  print_summary(out, run);
  EXPECT_NE(out.str().find("declared marks: 1 of 2 reached: takeover-mid-step=2; not reached: "
                           "stale-write-refused >= 95%\n"),
            std::string::npos)
      << out.str();
}

}  // namespace
}  // namespace fencesim::cli::output_test
