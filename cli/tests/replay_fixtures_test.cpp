// Replay files outlive the fencesim that wrote them (docs/replay-files.md).
//
// tests/fixtures/replay/ holds replay files written by the fencesim of 2026-12-01 (schema 2, and
// one in schema 1 as fencesim wrote them before the history record) and one written on 2026-12-05
// in schema 3, the last whose hashes were made by the names' bytes. Every later fencesim must
// load each one, run it, and say what became of its history: the same; changed, with the first
// divergent event (schema 2) or without it (schema 1); or a fault's trigger no longer reached.
// Which of these each fixture gets depends on what changed in the runtime since, so that is
// printed, not asserted (tests/fixtures/replay/README.md has the verdicts when they were written).
//
// What the classification itself must say is asserted on files made now, whose changes are known:
// a fresh file replays as the same history; a digest edited at event K diverges at exactly K; a
// recorded run cut short diverges where it ends; a fault that fired but no longer does is a lost
// trigger; a schema-1 file with another hash is a changed history of unknown first event.
#include <iostream>
#include <sstream>

#include "cli/tests/command_fixture.h"
#include "tests/paths.h"

namespace fencesim::cli::testing::replay_fixtures_test {
namespace {

using nlohmann::json;

const std::string kFixtures = fencesim::testing::source_dir() + "/tests/fixtures/replay";

class ReplayFixturesTest : public CommandTest {
 protected:
  json fresh(const std::string& scenario = "kleppmann-fencing") {
    const CommandResult run = fencesim("run --scenario " + scenario +
                                       " --seed 1 --sink-double accept-stale --replay-out f.json");
    EXPECT_EQ(run.code, 1) << run.err;
    return read_json("f.json");
  }

  // The hash `file`'s run has when its names are hashed by their bytes (the scheme of every file
  // before schema 4): what a file of schema 1 to 3 recorded for this run.
  std::string hash_by_names_bytes(json file) {
    file["history_hash_scheme"] = 1;
    write_json("bytes.json", file);
    const CommandResult replay = fencesim("replay --json bytes.json");
    EXPECT_NE(replay.code, 2) << replay.out << replay.err;
    return json::parse(replay.out)["history_hash"];
  }

  // `corpus run` over one file; its JSON entry.
  json judge(const json& file) {
    std::filesystem::remove_all(dir_ / "one");
    write_json("one/file.json", file);
    const CommandResult corpus = fencesim("corpus run one --json");
    EXPECT_NE(corpus.code, 2) << corpus.out << corpus.err;
    return json::parse(corpus.out)["files"][0];
  }
};

TEST_F(ReplayFixturesTest, EveryCheckedInFixtureLoadsRunsAndIsClassified) {
  const CommandResult corpus = fencesim("corpus run '" + kFixtures + "' --json");
  ASSERT_NE(corpus.code, 2) << corpus.out << corpus.err;  // 2: a file could not be used
  const json report = json::parse(corpus.out);
  ASSERT_GE(report["files"].size(), 4u);
  EXPECT_EQ(report["tally"]["unreadable"], 0);
  for (const json& file : report["files"]) {
    const std::string name = file["file"];
    SCOPED_TRACE(name);
    std::cout << "[fixture] " << name << ": " << file["verdict"].get<std::string>() << "; "
              << file["history"].get<std::string>() << ": "
              << file["history_detail"].get<std::string>() << "\n";
    ASSERT_TRUE(file.contains("history")) << file.dump();
    EXPECT_NE(file["status"], "harness-error") << file.dump();
    const std::string history = file["history"];
    const std::string detail = file["history_detail"];
    if (history == "history-changed") {
      // A schema-2 fixture names its first divergent event; a schema-1 one says it cannot.
      if (name.starts_with("schema1-")) {
        EXPECT_NE(detail.find("the first divergent event is unknown"), std::string::npos);
      } else {
        EXPECT_TRUE(file.contains("first_divergent_event")) << file.dump();
        EXPECT_NE(detail.find("first divergent event #"), std::string::npos) << detail;
        // A run's first events are the world's set-up (its nodes, its first phase), which no
        // runtime change moves: a file whose history differs from its very first event is being
        // hashed as it was not written (every name of it read by another scheme, sim/history.h).
        EXPECT_GT(file.value("first_divergent_event", 0), 0) << file.dump();
      }
    } else {
      EXPECT_TRUE(history == "same-history" || history == "trigger-not-reached") << history;
    }
  }
}

TEST_F(ReplayFixturesTest, AFileWrittenNowReplaysAsTheSameHistory) {
  const json entry = judge(fresh());
  EXPECT_EQ(entry["history"], "same-history") << entry.dump();
  EXPECT_EQ(entry["verdict"], "still-failing");
}

TEST_F(ReplayFixturesTest, AnEditedDigestDivergesAtThatEvent) {
  json file = fresh();
  std::string digest = file["history"]["digest"];
  const std::size_t events = file["history"]["events"];
  ASSERT_GT(events, 20u);
  const std::size_t k = events / 2;
  // Another 16-bit digest at event k, and a hash that no longer matches.
  digest[k * 4] = digest[k * 4] == '0' ? '1' : '0';
  file["history"]["digest"] = digest;
  file["expected_history_hash"] = "0123456789abcdef";
  const json entry = judge(file);
  EXPECT_EQ(entry["history"], "history-changed") << entry.dump();
  EXPECT_EQ(entry["first_divergent_event"], k) << entry.dump();
  EXPECT_NE(entry["history_detail"].get<std::string>().find(
                "first divergent event #" + std::to_string(k) + ": now #" + std::to_string(k)),
            std::string::npos)
      << entry.dump();
}

TEST_F(ReplayFixturesTest, ARecordedRunCutShortDivergesWhereItEnded) {
  json file = fresh();
  const std::size_t events = 12;
  file["history"]["events"] = events;
  file["history"]["digest"] = file["history"]["digest"].get<std::string>().substr(0, events * 4);
  file["expected_history_hash"] = "0123456789abcdef";
  const json entry = judge(file);
  EXPECT_EQ(entry["history"], "history-changed") << entry.dump();
  EXPECT_EQ(entry["first_divergent_event"], events) << entry.dump();
  EXPECT_NE(
      entry["history_detail"].get<std::string>().find("the recorded run ended after 12 events"),
      std::string::npos)
      << entry.dump();
}

TEST_F(ReplayFixturesTest, AFaultThatFiredButNoLongerDoesIsALostTrigger) {
  json file = fresh();
  ASSERT_EQ(file["fault_plan"].size(), 1u);
  ASSERT_EQ(file["history"]["faults_fired"][0], 1);
  file["fault_plan"][0]["trigger"]["occurrence"] = 50;  // as if the story no longer had a 50th
  file["expected_history_hash"] = "0123456789abcdef";   // write: recorded, it fired once
  const json entry = judge(file);
  EXPECT_EQ(entry["history"], "trigger-not-reached") << entry.dump();
  EXPECT_NE(entry["history_detail"].get<std::string>().find(
                "which fired 1 time(s) when recorded); history diverges at event #"),
            std::string::npos)
      << entry.dump();
}

TEST_F(ReplayFixturesTest, ASchemaOneFileWithAnotherHashIsAChangedHistoryOfUnknownStart) {
  json file = fresh();
  file["expected_history_hash"] = hash_by_names_bytes(file);
  file["version"] = 1;
  file.erase("history");
  file.erase("history_hash_scheme");
  file["fencesim_version"] = "0.0.1";
  EXPECT_EQ(judge(file)["history"], "same-history");
  file["expected_history_hash"] = "0123456789abcdef";
  const json entry = judge(file);
  EXPECT_EQ(entry["history"], "history-changed") << entry.dump();
  EXPECT_FALSE(entry.contains("first_divergent_event"));
  EXPECT_NE(entry["history_detail"].get<std::string>().find(
                "keeps no history record (schema 1), so the first divergent event is unknown"),
            std::string::npos)
      << entry.dump();
  EXPECT_EQ(entry["written_by"], "0.0.1");
}

}  // namespace
}  // namespace fencesim::cli::testing::replay_fixtures_test
