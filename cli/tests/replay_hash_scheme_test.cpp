// A replay runs with the hash scheme its file names (sim::HistoryHashScheme, docs/replay-files.md):
// a file written before schema 4 recorded a hash of the names' bytes, and must replay as the same
// history on a fencesim whose own runs hash names by their XXH3. Asserted end to end here, through
// `fencesim replay` and `fencesim corpus run` on one run written now, told each scheme in turn.
#include "cli/tests/command_fixture.h"

namespace fencesim::cli::testing::replay_hash_scheme_test {
namespace {

using nlohmann::json;

class ReplayHashScheme : public CommandTest {
 protected:
  // A failing run of nightly-mix (hostile tenant names up to 700 bytes), as written now.
  json written_now() {
    const CommandResult run = fencesim(
        "run --scenario nightly-mix --seed 1 --sink-double non-atomic --replay-out now.json");
    EXPECT_EQ(run.code, 1) << run.out << run.err;
    return read_json("now.json");
  }
  // `fencesim replay --json` of `file`: the run's history hash and whether it matched.
  json replay(const json& file) {
    write_json("replayed.json", file);
    const CommandResult replay = fencesim("replay --json replayed.json");
    EXPECT_NE(replay.code, 2) << replay.out << replay.err;
    return json::parse(replay.out);
  }
};

TEST_F(ReplayHashScheme, EachSchemeGivesTheSameRunAHashOfItsOwn) {
  json file = written_now();
  ASSERT_EQ(file["version"], 4);
  ASSERT_EQ(file["history_hash_scheme"], 2);
  const json by_hashes = replay(file);
  EXPECT_EQ(by_hashes["history_hash"], file["expected_history_hash"]);
  EXPECT_EQ(by_hashes["replay"]["history"], "same-history") << by_hashes.dump();
  file["history_hash_scheme"] = 1;
  const json by_bytes = replay(file);
  // The same run (same status, same events), another hash: the file's scheme was used.
  EXPECT_EQ(by_bytes["status"], by_hashes["status"]);
  EXPECT_EQ(by_bytes["events"], by_hashes["events"]);
  EXPECT_NE(by_bytes["history_hash"], by_hashes["history_hash"]);
  EXPECT_EQ(by_bytes["replay"]["history"], "history-changed") << by_bytes.dump();
  // Its history record was made by the other scheme: it diverges at the first event with a name.
  EXPECT_EQ(by_bytes["replay"]["first_divergent_event"], 0) << by_bytes.dump();
}

TEST_F(ReplayHashScheme, AFileOfAnOlderSchemaReplaysByTheNamesBytes) {
  json file = written_now();
  file["history_hash_scheme"] = 1;
  const std::string by_bytes = replay(file)["history_hash"];
  ASSERT_NE(by_bytes, file["expected_history_hash"]);
  // As fencesim wrote the run before schema 4: that hash, no scheme named (and no history record,
  // whose digests were made by the scheme this test cannot write).
  file.erase("history_hash_scheme");
  file.erase("history");
  file["expected_history_hash"] = by_bytes;
  for (const int schema : {1, 2, 3}) {
    SCOPED_TRACE(schema);
    file["version"] = schema;
    const json replayed = replay(file);
    EXPECT_EQ(replayed["history_hash"], by_bytes);
    EXPECT_EQ(replayed["replay"]["matches"], true) << replayed.dump();
    EXPECT_EQ(replayed["replay"]["history"], "same-history") << replayed.dump();
    write_json("corpus/old.json", file);
    const CommandResult corpus = fencesim("corpus run corpus --json");
    ASSERT_NE(corpus.code, 2) << corpus.out << corpus.err;
    EXPECT_EQ(json::parse(corpus.out)["files"][0]["history"], "same-history") << corpus.out;
  }
}

}  // namespace
}  // namespace fencesim::cli::testing::replay_hash_scheme_test
