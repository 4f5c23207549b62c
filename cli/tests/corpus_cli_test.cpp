// `fencesim corpus run DIR`: a corpus of a still-failing file (a stale-accepting sink), a fixed one
// (the same failure with the sink double taken out: the bug fixed), one whose trigger is no longer
// reached, one that fails differently and a corrupt one. Each is classified, the corrupt one does
// not stop the others, and the exit code says that something still fails.
#include <sstream>
#include <vector>

#include "cli/tests/command_fixture.h"

namespace fencesim::cli::testing::corpus_cli_test {
namespace {

using nlohmann::json;

class CorpusCliTest : public CommandTest {
 protected:
  json failure() {
    const CommandResult run = fencesim(
        "run --scenario kleppmann-fencing --seed 1 --sink-double accept-stale --replay-out "
        "failure.json");
    EXPECT_EQ(run.code, 1) << run.err;
    return read_json("failure.json");
  }
};

TEST_F(CorpusCliTest, ClassifiesEachFileAndGoesOnPastACorruptOne) {
  json file = failure();
  write_json("corpus/a-still-failing.json", file);
  json fixed = file;
  fixed["sink_double"] = "";  // the build under test refuses stale tokens again
  write_json("corpus/b-fixed.json", fixed);
  json unreached = fixed;
  unreached["fault_plan"][0]["trigger"]["occurrence"] = 50;  // there is no 50th write
  write_json("corpus/c-unreached.json", unreached);
  json other = file;
  other["violations"][0]["invariant"] = "exactly-once";
  write_json("corpus/d-other.json", other);
  write("corpus/e-corrupt.json", "{\"format\": \"fencesim-replay\", ");
  write("corpus/notes.txt", "not a replay file, not read");

  const CommandResult corpus = fencesim("corpus run corpus");
  EXPECT_EQ(corpus.code, 1) << corpus.out << corpus.err;
  EXPECT_EQ(corpus.err, "");
  // Each file that ran has a second line, its history's verdict (reports/replay_compare.h).
  std::string outcomes;
  std::vector<std::string> histories;
  std::istringstream lines(corpus.out);
  for (std::string line; std::getline(lines, line);) {
    const bool history = line.starts_with("same-history") || line.starts_with("history-changed") ||
                         line.starts_with("trigger-not-reached") || line.starts_with("histories:");
    if (history) {
      histories.push_back(line);
    } else {
      outcomes += line + "\n";
    }
  }
  ASSERT_EQ(histories.size(), 5u) << corpus.out;
  EXPECT_TRUE(
      histories[0].starts_with("same-history               a-still-failing.json  same "
                               "history (hash "))
      << histories[0];
  // The sink refuses the stale write now: the history goes another way from that event on.
  EXPECT_TRUE(
      histories[1].starts_with("history-changed            b-fixed.json  history "
                               "changed: first divergent event #"))
      << histories[1];
  EXPECT_TRUE(
      histories[2].starts_with("trigger-not-reached        c-unreached.json  a fault's "
                               "trigger is no longer reached: 1 of 1 fault never fired"))
      << histories[2];
  EXPECT_TRUE(histories[3].starts_with("same-history               d-other.json  same history"))
      << histories[3];
  EXPECT_EQ(histories[4], "histories: 2 same-history, 1 history-changed, 1 trigger-not-reached");
  const std::string expected =
      "still-failing              a-still-failing.json  violation of sink-monotonicity\n"
      "fixed                      b-fixed.json  passes, and all 1 fault fired as before\n"
      "no-longer-reaches-trigger  c-unreached.json  passes, but 1 of 1 faults never fired "
      "(first: stall instance-1 for 41782 ms after write-sent #50 at instance-1)\n"
      "fails-differently          d-other.json  now violation of sink-monotonicity; recorded "
      "violation of exactly-once\n"
      "unreadable                 e-corrupt.json  replay file 'corpus/e-corrupt.json' is not "
      "JSON\n"
      "corpus corpus: 5 files: 1 still-failing, 1 fails-differently, 1 "
      "no-longer-reaches-trigger, 1 fixed, 1 unreadable\n";
  EXPECT_EQ(outcomes, expected);

  const CommandResult as_json = fencesim("corpus run corpus --json");
  EXPECT_EQ(as_json.code, 1);
  const json report = json::parse(as_json.out);
  ASSERT_EQ(report["files"].size(), 5u);
  EXPECT_EQ(report["files"][1]["verdict"], "fixed");
  EXPECT_EQ(report["files"][1]["faults_applied"], 1);
  EXPECT_EQ(report["files"][2]["faults_applied"], 0);
  EXPECT_EQ(report["tally"]["unreadable"], 1);
  EXPECT_EQ(report["files"][0]["history"], "same-history");
  EXPECT_EQ(report["files"][1]["history"], "history-changed");
  EXPECT_TRUE(report["files"][1]["first_divergent_event"].is_number_unsigned());
  EXPECT_EQ(report["files"][2]["history"], "trigger-not-reached");
  EXPECT_FALSE(report["files"][4].contains("history"));
  EXPECT_EQ(report["history_tally"]["same-history"], 2);
}

TEST_F(CorpusCliTest, ExitCodes) {
  json file = failure();
  json fixed = file;
  fixed["sink_double"] = "";
  write_json("all-fixed/one.json", fixed);
  const CommandResult all_fixed = fencesim("corpus run all-fixed");
  EXPECT_EQ(all_fixed.code, 0) << all_fixed.out;
  EXPECT_NE(all_fixed.out.find("1 files: 0 still-failing, 0 fails-differently, 0 "
                               "no-longer-reaches-trigger, 1 fixed, 0 unreadable"),
            std::string::npos)
      << all_fixed.out;

  write_json("fixed-and-corrupt/one.json", fixed);
  write("fixed-and-corrupt/two.json", "[]");
  EXPECT_EQ(fencesim("corpus run fixed-and-corrupt").code, 2);

  // A file that fails otherwise than recorded is a failure too (a new bug, or the old one moved),
  // and it outranks a corrupt file beside it: exit 1, never the fixed corpus's 0.
  json other = file;
  other["violations"][0]["invariant"] = "exactly-once";
  write_json("differs/one.json", other);
  write_json("differs/two.json", fixed);
  const CommandResult differs = fencesim("corpus run differs");
  EXPECT_EQ(differs.code, 1) << differs.out;
  EXPECT_NE(differs.out.find("2 files: 0 still-failing, 1 fails-differently, 0 "
                             "no-longer-reaches-trigger, 1 fixed, 0 unreadable"),
            std::string::npos)
      << differs.out;
  write("differs/three.json", "[]");
  EXPECT_EQ(fencesim("corpus run differs").code, 1);

  expect_usage_error(fencesim("corpus run missing"), "fencesim: corpus: 'missing' is not a folder");
  write("empty/readme.txt", "");
  expect_usage_error(fencesim("corpus run empty"),
                     "fencesim: corpus: no replay file (*.json) in 'empty'");
}


// A liveness failure in a corpus, still failing, says how the run stopped short and what it was
// stuck on (the run's detail), not the bare status: two liveness bugs read as one otherwise.
// planted-lost-wakeup's tree stops with its lease held and its step running (scenarios/
// planted_bugs.cpp).
TEST_F(CorpusCliTest, AStillFailingLivenessEntrySaysWhatItWasStuckOn) {
  std::filesystem::create_directories(dir_ / "stuck");
  setenv("FENCESIM_TEST_PLANTED_BUGS", "1", 1);
  const CommandResult run = fencesim(
      "run --scenario planted-lost-wakeup --seed 1 --json --replay-out stuck/lost-wakeup.json");
  const CommandResult corpus = fencesim("corpus run stuck --json");
  unsetenv("FENCESIM_TEST_PLANTED_BUGS");
  ASSERT_EQ(run.code, 3) << run.out << run.err;
  const std::string detail = json::parse(run.out)["detail"];
  ASSERT_TRUE(detail.starts_with("trees not completed when the run ended (time-reached)\n"))
      << detail;
  EXPECT_EQ(corpus.code, 1) << corpus.out << corpus.err;
  const json report = json::parse(corpus.out);
  ASSERT_EQ(report["files"].size(), 1u) << corpus.out;
  EXPECT_EQ(report["files"][0]["verdict"], "still-failing") << corpus.out;
  EXPECT_EQ(report["files"][0]["status"], "liveness") << corpus.out;
  EXPECT_EQ(report["files"][0]["detail"], "liveness: " + detail) << corpus.out;
}

// A corpus holds failures. A file that records a passing run (a sweep's passing branch, copied in
// by mistake) is unreadable as a corpus entry, not judged: run, it would read "fixed" (or
// "fails-differently"), and a corpus of passing files would gate nothing.
TEST_F(CorpusCliTest, AFileOfAPassingRunIsNoEntry) {
  json passing = failure();
  passing["sink_double"] = "";
  passing["expected_status"] = "pass";
  passing["violations"] = json::array();
  write_json("passing/one.json", passing);
  const CommandResult result = fencesim("corpus run passing");
  EXPECT_EQ(result.code, 2) << result.out << result.err;
  EXPECT_NE(result.out.find("records a passing run, not a failure"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("1 files: 0 still-failing, 0 fails-differently, 0 "
                            "no-longer-reaches-trigger, 0 fixed, 1 unreadable"),
            std::string::npos)
      << result.out;
}

// A file written before replay files kept a history record (no "history": which faults fired
// then is unknown) counts every fault of its plan as having fired: one that never fires now is a
// trigger no longer reached, not merely a changed history.
TEST_F(CorpusCliTest, AFileWithoutAHistoryRecordStillLosesItsTrigger) {
  json unreached = failure();
  unreached["sink_double"] = "";
  unreached["fault_plan"][0]["trigger"]["occurrence"] = 50;  // there is no 50th write
  unreached.erase("history");
  write_json("old/unreached.json", unreached);
  const CommandResult corpus = fencesim("corpus run old --json");
  EXPECT_EQ(corpus.code, 0) << corpus.out << corpus.err;
  const json report = json::parse(corpus.out);
  ASSERT_EQ(report["files"].size(), 1u);
  EXPECT_EQ(report["files"][0]["verdict"], "no-longer-reaches-trigger");
  EXPECT_EQ(report["files"][0]["history"], "trigger-not-reached") << report.dump(2);
  EXPECT_TRUE(report["files"][0]["history_detail"].get<std::string>().starts_with(
      "a fault's trigger is no longer reached: 1 of 1 fault never fired now (first: fault 0, "))
      << report.dump(2);
  EXPECT_EQ(report["history_tally"]["trigger-not-reached"], 1);
}

}  // namespace
}  // namespace fencesim::cli::testing::corpus_cli_test
