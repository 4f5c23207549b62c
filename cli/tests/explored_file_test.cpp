// A replay file `fencesim explore` wrote carries its schedule's choice log (docs/explore.md):
// `corpus run` and `shrink` run it as `fencesim replay` does, through that log (cli/replay_run.h).
// Without it the same plan runs under the seeded strategy, another run: corpus run would judge a
// history nobody recorded, and shrink would shrink it. Shrink replays the recorded run and then
// refuses (exit 2): the log fits only its own plan.
#include <algorithm>
#include <set>

#include "cli/replay_run.h"
#include "cli/tests/sweep_fixture.h"
#include "reports/replay_file.h"
#include "scenarios/scenario.h"

namespace fencesim::cli::testing::explored_file_test {
namespace {

using nlohmann::json;

class ExploredFileTest : public BinaryTest {
 protected:
  // Every failing schedule of a small world whose sinks accept stale tokens within one delay,
  // written to found/ (28 files). The seeded strategy picks other fibers than these schedules
  // did: without the choice log, the same plan gives another history (checked when this test was
  // written: every file history-changed, and shrink shrank the seeded run). Most of them share one
  // history, the default order's (their other choices change nothing the history records); a few
  // do not, and only those tell a replay that follows the log from one that takes every first
  // alternative.
  std::vector<std::string> explored_failures() {
    const Result explore = fencesim(
        "explore --scenario explore-two-holders-pause --bound 1 --sink-double accept-stale "
        "--keep 100 --out found");
    EXPECT_EQ(explore.code, 1) << explore.out << explore.err;
    std::vector<std::string> files;
    std::set<std::string> histories;
    for (const auto& entry : fs::directory_iterator(path("found"))) {
      files.push_back("found/" + entry.path().filename().string());
      const json file = read_json(entry.path());
      EXPECT_TRUE(file.contains("choices")) << files.back();
      histories.insert(file.value("expected_history_hash", ""));
    }
    std::sort(files.begin(), files.end());
    EXPECT_GE(histories.size(), 3u) << "the schedules found no longer differ: " << explore.out;
    return files;
  }

  // One file of each recorded history.
  std::vector<std::string> one_per_history(const std::vector<std::string>& files) {
    std::set<std::string> seen;
    std::vector<std::string> out;
    for (const std::string& file : files) {
      if (seen.insert(read_json(path(file))["expected_history_hash"]).second) out.push_back(file);
    }
    return out;
  }
};

// An exploration cut short by --max-schedules says so, with how many schedules it ran, on each
// line and in its verdict: "complete" would claim every schedule within the bound was tried. The
// same world within one delay has 93 schedules (95 without the reduction) and completes.
TEST_F(ExploredFileTest, AnExplorationCutShortSaysWhereItStopped) {
  const Result cut =
      fencesim("explore --scenario explore-yield-sibling --bound 2 --max-schedules 7 --out cut");
  ASSERT_EQ(cut.code, 0) << cut.out << cut.err;
  EXPECT_TRUE(cut.out.ends_with("\nviolations: 0\nincomplete: stopped at 7 schedules\n"))
      << cut.out;
  for (const char* label : {"with reduction ", "without reduction "}) {
    const std::size_t line = cut.out.find("  " + std::string(label));
    ASSERT_NE(line, std::string::npos) << cut.out;
    const std::string text = cut.out.substr(line, cut.out.find('\n', line) - line);
    EXPECT_NE(text.find(" 7 schedules "), std::string::npos) << text;
    EXPECT_NE(text.find("  incomplete: stopped at 7 schedules  "), std::string::npos) << text;
  }
  const Result whole =
      fencesim("explore --scenario explore-yield-sibling --bound 1 --max-schedules 1000 --out all");
  ASSERT_EQ(whole.code, 0) << whole.out << whole.err;
  EXPECT_TRUE(whole.out.ends_with("\nviolations: 0\ncomplete\n")) << whole.out;
  EXPECT_EQ(whole.out.find("incomplete"), std::string::npos) << whole.out;
}

// --keep N writes the first N failing schedules and no more (the world has 28 at bound 1), and
// prints a replay command for each file written; --keep 0 writes none.
TEST_F(ExploredFileTest, KeepWritesExactlyThatManyFailingSchedules) {
  for (const int keep : {0, 2}) {
    const std::string out = "kept-" + std::to_string(keep);
    const Result explore = fencesim(
        "explore --scenario explore-two-holders-pause --bound 1 --sink-double accept-stale "
        "--keep " +
        std::to_string(keep) + " --out " + out);
    EXPECT_EQ(explore.code, 1) << explore.out << explore.err;
    std::size_t files = 0;
    for (const auto& entry : fs::directory_iterator(path(out))) {
      (void)entry;
      ++files;
    }
    EXPECT_EQ(files, static_cast<std::size_t>(keep)) << explore.out;
    std::size_t commands = 0;
    for (std::size_t at = explore.out.find("fencesim replay "); at != std::string::npos;
         at = explore.out.find("fencesim replay ", at + 1)) {
      ++commands;
    }
    EXPECT_EQ(commands, static_cast<std::size_t>(keep)) << explore.out;
  }
}

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
  for (const std::string& file : one_per_history(files)) {
    const Result replay = fencesim("replay " + file);
    EXPECT_EQ(replay.code, 1) << replay.out << replay.err;
    EXPECT_NE(replay.out.find("replay matches"), std::string::npos) << replay.out;
  }
}

// A ReplayRun of an explored schedule runs it from the start of its choice log every time: the
// second run is the recorded one too (red team 40a-15: the chooser was set back only once, and a
// second run read a spent log, taking the default alternatives).
TEST_F(ExploredFileTest, EachRunOfAReplayRunFollowsTheWholeChoiceLog) {
  const std::vector<std::string> files = one_per_history(explored_failures());
  ASSERT_GE(files.size(), 3u);
  const scenarios::ScenarioRegistry registry = scenarios::builtin_scenarios();
  for (const std::string& name : files) {
    const reports::ReplayFile file = reports::read_replay_file(path(name).string());
    const ReplayRun replay(registry, file, name);
    for (int run = 0; run < 2; ++run) {
      EXPECT_EQ(reports::hash_hex(replay.run(nullptr).history_hash), file.expected_history_hash)
          << name << ", run " << run + 1;
    }
  }
}

TEST_F(ExploredFileTest, ShrinkReplaysTheRecordedScheduleAndRefusesToShrinkIt) {
  const std::vector<std::string> files = one_per_history(explored_failures());
  ASSERT_FALSE(files.empty());
  for (const std::string& file : files) {
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

// `sweep --known DIR` and `merge --known DIR` read a corpus file without a signature (as `fencesim
// explore` writes them) by running it: through its choice log, as `fencesim replay` does. Run under
// the seeded strategy instead, some of these files do not even reach their fault's trigger and
// pass (checked when this test was written: three of the five histories), so their failure added
// no signature and stayed "new" to every sweep told it was known.
TEST_F(ExploredFileTest, AKnownCorpusKnowsTheFailureOfEachExploredSchedule) {
  const std::vector<std::string> files = one_per_history(explored_failures());
  ASSERT_FALSE(files.empty());
  const Result plain =
      fencesim("sweep --scenario kleppmann-fencing --seeds 1..1 --jobs 1 --out plain");
  ASSERT_EQ(plain.code, 0) << plain.out << plain.err;
  for (std::size_t i = 0; i < files.size(); ++i) {
    // The file alone in its corpus: what is known is its failure and nothing else.
    const std::string corpus = "known-" + std::to_string(i);
    fs::create_directories(path(corpus));
    fs::copy_file(path(files[i]), path(corpus + "/" + fs::path(files[i]).filename().string()));
    // The signature starts with the invariant the recorded run broke first.
    const std::string invariant = read_json(path(files[i]))["violations"][0]["invariant"];
    const auto expect_known = [&](const std::string& folder) {
      const json known = read_json(path(folder + "/sweep.json"))["known"];
      ASSERT_TRUE(known.is_object()) << folder;
      ASSERT_EQ(known["signatures"].size(), 1u) << files[i] << ": " << known.dump();
      EXPECT_EQ(known["signatures"][0].get<std::string>().rfind(invariant + ": ", 0), 0u)
          << files[i] << ": " << known.dump();
    };
    const Result sweep =
        fencesim("sweep --scenario kleppmann-fencing --seeds 1..1 --jobs 1 --known " + corpus +
                 " --out swept-" + std::to_string(i));
    ASSERT_EQ(sweep.code, 0) << sweep.out << sweep.err;
    expect_known("swept-" + std::to_string(i));
    const Result merge =
        fencesim("merge --known " + corpus + " --out merged-" + std::to_string(i) + " plain");
    ASSERT_EQ(merge.code, 0) << merge.out << merge.err;
    expect_known("merged-" + std::to_string(i));
  }
}

}  // namespace
}  // namespace fencesim::cli::testing::explored_file_test
