// Triage end to end, with real failures (the broken sink double, a worker crash from the test
// hook): one group per distinct bug at the top of summary.json, report.html and the console;
// new versus known against an earlier output or a corpus (--known), kept by merge; --fail-on.
#include <algorithm>
#include <set>

#include "cli/tests/sweep_fixture.h"

namespace fencesim::cli::testing::triage_test {
namespace {

using nlohmann::json;

class TriageTest : public BinaryTest {
 protected:
  // A sweep of the planted bug (every sink accepts stale tokens) on `seeds`.
  Result planted(const std::string& seeds, const std::string& out, const std::string& extra = "",
                 const std::string& env = "") const {
    return fencesim("sweep --scenario kleppmann-fencing --scenario expiry-during-write --seeds " +
                        seeds + " --strategy random --jobs 2 --sink-double accept-stale --out " +
                        out + " " + extra,
                    env);
  }

  json groups(const std::string& out) const {
    return read_json(path(out + "/summary.json"))["groups"];
  }
};

const std::string kSinkBug =
    "sink-monotonicity: sink-accepted(sink)";

TEST_F(TriageTest, APlantedBugIsOneGroupAtTheTopOfEveryReport) {
  const Result result = planted("1..6", "out");
  ASSERT_EQ(result.code, 1) << result.out << result.err;
  const json summary = read_json(path("out/summary.json"));
  const std::uint64_t failed = summary["totals"]["failed"];
  ASSERT_GE(failed, 10u);
  ASSERT_EQ(summary["groups"].size(), 1u) << summary["groups"].dump(2);
  const json& group = summary["groups"][0];
  EXPECT_EQ(group["signature"], kSinkBug);
  EXPECT_EQ(group["count"], failed);
  EXPECT_EQ(group["scenarios"], json::array({"expiry-during-write", "kleppmann-fencing"}));
  EXPECT_TRUE(group["known"].is_null());  // no --known
  EXPECT_EQ(group["example"]["shrunk"], true);
  // The example replays from inside the output folder and its timeline page is there.
  const std::string replay = group["example"]["replay_command"];
  EXPECT_TRUE(replay.starts_with("fencesim replay failures/")) << replay;
  EXPECT_TRUE(fs::exists(path("out") / group["example"]["html"].get<std::string>()));
  const Result again =
      fencesim("replay out/" + replay.substr(std::string("fencesim replay ").size()));
  EXPECT_EQ(again.code, 1) << again.out << again.err;
  // summary.json: the groups before everything but the file's own header (read from the text:
  // a parsed object no longer has its order).
  const std::string text = read_text(path("out/summary.json"));
  EXPECT_LT(text.find("\"groups\""), text.find("\"configuration\""));
  EXPECT_LT(text.find("\"groups\""), text.find("\"failures\": ["));
  // The console: the groups block opens the closing lines, before the per-scenario lines.
  const auto block = result.out.find("failure groups: 1 distinct (no --known: all new)\n");
  ASSERT_NE(block, std::string::npos) << result.out;
  EXPECT_NE(result.out.find("  NEW [" + group["id"].get<std::string>() + "] " +
                            std::to_string(failed) + " runs: " + kSinkBug + "\n"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("    smallest: 1 fault (shrunk): fencesim replay out/failures/"),
            std::string::npos)
      << result.out;
  EXPECT_LT(block, result.out.find("\nkleppmann-fencing: "));
  EXPECT_NE(result.out.find("in 1 distinct failure group (1 new)"), std::string::npos);
  // report.html carries the groups; summary.md exists and leads with them.
  EXPECT_NE(read_text(path("out/report.html")).find(group["id"].get<std::string>()),
            std::string::npos);
  const std::string markdown = read_text(path("out/summary.md"));
  EXPECT_TRUE(markdown.starts_with("## fencesim sweep: 1 distinct failure (1 new)\n")) << markdown;
  EXPECT_LT(markdown.find("### Failure groups"), markdown.find("### Scenarios"));
  // Every replay file of the failures carries the signature (for a corpus to say what it knows).
  const json replay_file =
      read_json(path("out") / group["example"]["replay_file"].get<std::string>());
  EXPECT_EQ(replay_file["signature"], kSinkBug);
}

// Two distinct bugs, two groups: the planted sink bug, and a worker that crashes on seed 3.
TEST_F(TriageTest, TwoDistinctBugsAreTwoGroups) {
  const Result result = planted("1..5", "out", "", "FENCESIM_TEST_CRASH_SEED=3 ");
  ASSERT_EQ(result.code, 5) << result.out << result.err;  // a harness error ranks first
  const json found = groups("out");
  ASSERT_EQ(found.size(), 2u) << found.dump(2);
  std::set<std::string> signatures;
  for (const json& group : found) signatures.insert(group["signature"]);
  EXPECT_EQ(signatures, (std::set<std::string>{
                            kSinkBug, "harness: worker killed by signal 11 (Segmentation fault)"}));
  for (const json& group : found) {
    if (group["kind"] != "harness") continue;
    EXPECT_EQ(group["count"], 2);  // seed 3 of both scenarios
    EXPECT_EQ(group["first"]["seed"], 3);
    EXPECT_EQ(group["example"]["shrunk"], false);
    EXPECT_TRUE(group["example"]["faults"].is_null());
  }
  EXPECT_NE(result.out.find("failure groups: 2 distinct"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("    example (not shrunk): fencesim run --scenario "),
            std::string::npos)
      << result.out;
}

TEST_F(TriageTest, NewAndKnownAgainstAnEarlierOutput) {
  ASSERT_EQ(planted("1..3", "night1").code, 1);
  // The next night: the same bug on other seeds, and a new one (a crash on seed 5).
  const Result night2 = planted("4..6", "night2", "--known night1", "FENCESIM_TEST_CRASH_SEED=5 ");
  ASSERT_EQ(night2.code, 5) << night2.out << night2.err;
  EXPECT_NE(night2.out.find("known: 1 failure signature from night1; --fail-on any"),
            std::string::npos)
      << night2.out;
  const json found = groups("night2");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0]["kind"], "harness");  // new first
  EXPECT_EQ(found[0]["known"], false);
  EXPECT_EQ(found[1]["signature"], kSinkBug);
  EXPECT_EQ(found[1]["known"], true);
  EXPECT_NE(night2.out.find("failure groups: 2 distinct (1 new, 1 known)"), std::string::npos);
  EXPECT_NE(night2.out.find("  known [" + found[1]["id"].get<std::string>() + "]"),
            std::string::npos);
  // --fail-on new: the new crash still fails the sweep...
  const Result crash_new =
      planted("4..6", "night2b", "--known night1 --fail-on new", "FENCESIM_TEST_CRASH_SEED=5 ");
  EXPECT_EQ(crash_new.code, 5) << crash_new.out;
  // ...and a night of only the known bug passes with --fail-on new, fails with --fail-on any.
  EXPECT_EQ(planted("4..6", "night3", "--known night1 --fail-on new").code, 0);
  EXPECT_EQ(planted("4..6", "night4", "--known night1 --fail-on any").code, 1);
  const json known_only = read_json(path("night3/summary.json"));
  EXPECT_EQ(known_only["totals"]["new_groups"], 0);
  EXPECT_EQ(known_only["groups"][0]["known"], true);
  // A bug stays known through a night it did not show: night5 passes (no broken sink) but knew it.
  const Result quiet = fencesim(
      "sweep --scenario kleppmann-fencing --seeds 1..2 --strategy random --jobs 1 --out night5 "
      "--known night1");
  ASSERT_EQ(quiet.code, 0) << quiet.out << quiet.err;
  EXPECT_EQ(planted("7..8", "night6", "--known night5 --fail-on new").code, 0);
  EXPECT_EQ(groups("night6")[0]["known"], true);
}

TEST_F(TriageTest, NewAndKnownAgainstACorpus) {
  ASSERT_EQ(planted("1..3", "night1", "--corpus corpus").code, 1);
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(path("corpus"))) files.push_back(entry.path());
  ASSERT_FALSE(files.empty());
  for (const fs::path& file : files) EXPECT_EQ(read_json(file)["signature"], kSinkBug) << file;
  EXPECT_EQ(planted("4..6", "night2", "--known corpus --fail-on new").code, 0);
  EXPECT_EQ(groups("night2")[0]["known"], true);
  // Replay files without a signature (an older fencesim's, `fencesim run`'s) are run again.
  for (const fs::path& file : files) {
    json replay = read_json(file);
    replay.erase("signature");
    write("bare/" + file.filename().string(), replay.dump(2));
  }
  const Result bare = planted("4..6", "night3", "--known bare --fail-on new");
  EXPECT_EQ(bare.code, 0) << bare.out << bare.err;
  EXPECT_EQ(groups("night3")[0]["known"], true);
}

// A merged night's folder with its corpus beside it (merged/ and merged/corpus/, as the nightly
// publishes them): --known reads the replay files of the corpus folder inside it too.
TEST_F(TriageTest, NewAndKnownAgainstAFolderWithItsCorpusInside) {
  ASSERT_EQ(planted("1..3", "night1", "--corpus corpus").code, 1);
  std::size_t copied = 0;
  for (const auto& entry : fs::directory_iterator(path("corpus"))) {
    write("merged/corpus/" + entry.path().filename().string(), read_text(entry.path()));
    ++copied;
  }
  ASSERT_GT(copied, 0u);
  const Result night2 = planted("4..6", "night2", "--known merged --fail-on new");
  EXPECT_EQ(night2.code, 0) << night2.out << night2.err;
  ASSERT_FALSE(groups("night2").empty());
  EXPECT_EQ(groups("night2")[0]["known"], true);
}

TEST_F(TriageTest, MergeKeepsWhatTheShardsKnew) {
  ASSERT_EQ(planted("1..2", "night1").code, 1);
  const std::string sweep = "3..6";
  ASSERT_EQ(planted(sweep, "s0", "--shard 0/2 --known night1").code, 1);
  ASSERT_EQ(planted(sweep, "s1", "--shard 1/2 --known night1").code, 1);
  const Result merged = fencesim("merge --out merged s0 s1");
  EXPECT_EQ(merged.code, 1) << merged.out << merged.err;
  const json summary = read_json(path("merged/summary.json"));
  EXPECT_EQ(summary["known"]["sources"], json::array({"night1"}));
  ASSERT_EQ(summary["groups"].size(), 1u);
  EXPECT_EQ(summary["groups"][0]["known"], true);
  EXPECT_NE(merged.out.find("failure groups: 1 distinct (0 new, 1 known)"), std::string::npos)
      << merged.out;
  EXPECT_EQ(fencesim("merge --out merged2 --fail-on new s0 s1").code, 0);
  // Shards swept without --known, judged at the merge.
  ASSERT_EQ(planted(sweep, "t0", "--shard 0/2").code, 1);
  ASSERT_EQ(planted(sweep, "t1", "--shard 1/2").code, 1);
  const Result late = fencesim("merge --out merged3 --known night1 --fail-on new t0 t1");
  EXPECT_EQ(late.code, 0) << late.out << late.err;
  EXPECT_EQ(read_json(path("merged3/summary.json"))["groups"][0]["known"], true);
  EXPECT_TRUE(fs::exists(path("merged3/summary.md")));
}

TEST_F(TriageTest, BadKnownAndFailOnAreOneLineErrors) {
  expect_usage_error(planted("1..2", "out", "--known nowhere"),
                     "--known: 'nowhere' is not a folder (give a corpus or an earlier sweep's "
                     "output folder)");
  expect_usage_error(planted("1..2", "out", "--fail-on some"),
                     "--fail-on: expected new or any, got 'some'");
  write("broken/x.replay.json", "{ not json");
  const Result broken = planted("1..2", "out", "--known broken");
  EXPECT_EQ(broken.code, 2) << broken.out << broken.err;
  EXPECT_TRUE(broken.err.starts_with("fencesim: --known: ")) << broken.err;
  EXPECT_EQ(std::count(broken.err.begin(), broken.err.end(), '\n'), 1) << broken.err;
  expect_usage_error(fencesim("merge --out m --fail-on nope s0"),
                     "--fail-on: expected new or any, got 'nope'");
}

}  // namespace
}  // namespace fencesim::cli::testing::triage_test
