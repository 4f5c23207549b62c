// A replay file `fencesim explore` wrote carries its schedule's choice log (docs/explore.md):
// `corpus run` and `shrink` run it as `fencesim replay` does, through that log (cli/replay_run.h).
// Without it the same plan runs under the seeded strategy, another run: corpus run would judge a
// history nobody recorded, and shrink would shrink it. Shrink replays the recorded run and then
// refuses (exit 2): the log fits only its own plan.
#include <algorithm>

#include "cli/tests/sweep_fixture.h"

namespace fencesim::cli::testing::explored_file_test {
namespace {

using nlohmann::json;

class ExploredFileTest : public BinaryTest {
 protected:
  // The first failing schedules of a small world whose sinks accept stale tokens, written to
  // found/. The seeded strategy picks other fibers than these schedules did: without the choice
  // log, the same plan gives another history (checked when this test was written: every file
  // history-changed, and shrink shrank the seeded run).
  std::vector<std::string> explored_failures() {
    const Result explore = fencesim(
        "explore --scenario explore-two-holders-pause --bound 1 --sink-double accept-stale "
        "--keep 4 --out found");
    EXPECT_EQ(explore.code, 1) << explore.out << explore.err;
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(path("found"))) {
      files.push_back(entry.path().filename().string());
    }
    std::sort(files.begin(), files.end());
    EXPECT_EQ(files.size(), 4u) << explore.out;
    for (const std::string& file : files) {
      EXPECT_TRUE(read_json(path("found/" + file)).contains("choices")) << file;
    }
    return files;
  }
};

TEST_F(ExploredFileTest, CorpusRunOfAnExploredFailureReproducesItsRecordedHistory) {
  const std::vector<std::string> files = explored_failures();
  ASSERT_FALSE(files.empty());
  const Result corpus = fencesim("corpus run --json found");
  ASSERT_EQ(corpus.code, 1) << corpus.out << corpus.err;  // still failing
  const json verdicts = json::parse(corpus.out);
  ASSERT_EQ(verdicts["files"].size(), files.size()) << corpus.out;
  for (const json& file : verdicts["files"]) {
    EXPECT_EQ(file["verdict"], "still-failing") << file.dump();
    EXPECT_EQ(file["history"], "same-history") << file.dump();
  }
  EXPECT_EQ(verdicts["history_tally"]["same-history"], files.size());
  // `fencesim replay` agrees: the same run.
  const Result replay = fencesim("replay found/" + files.front());
  EXPECT_EQ(replay.code, 1) << replay.out << replay.err;
  EXPECT_NE(replay.out.find("replay matches"), std::string::npos) << replay.out;
}

TEST_F(ExploredFileTest, ShrinkReplaysTheRecordedScheduleAndRefusesToShrinkIt) {
  const std::vector<std::string> files = explored_failures();
  ASSERT_FALSE(files.empty());
  for (const std::string& name : files) {
    const std::string file = "found/" + name;
    // "with its recorded history": the run shrink started from is the recorded one, bit for bit.
    expect_usage_error(
        fencesim("shrink " + file),
        "replay file '" + file +
            "' is a schedule found by fencesim explore: it fails as recorded with its recorded "
            "history, but its choice log fits only its own fault plan, so it cannot be shrunk "
            "(replay it: fencesim replay " +
            file + ")");
  }
  for (const auto& entry : fs::directory_iterator(path("found"))) {
    EXPECT_FALSE(entry.path().filename().string().ends_with(".shrunk.json")) << entry.path();
  }
}

}  // namespace
}  // namespace fencesim::cli::testing::explored_file_test
