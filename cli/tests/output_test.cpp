// The command a person copies to see a failure again (cli/output.h, replay_command): a path a POSIX
// shell would split or expand is quoted, so that the line runs as printed (a sweep's --out folder
// may hold a space: "nightly runs/failures/...").
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace fencesim::cli::output_test
