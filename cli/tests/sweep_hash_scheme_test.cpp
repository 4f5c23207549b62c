// A sweep folder's history hash scheme (reports/sweep_config.h; docs/reports.md): the scheme
// changed within one fencesim version (session 26: names' bytes, then their XXH3), so the version
// check does not keep a folder's runs from another scheme's. A merge of a shard written before the
// change with one written after, or a resume of a sweep interrupted before it, would mix hashes
// of two schemes: each history counted once per scheme, distinct histories doubled. sweep.json
// records the scheme; a merge refuses shards that differ in it as different sweeps, and a resume
// refuses a folder hashed otherwise than this fencesim hashes (one line, exit 2).
#include "cli/tests/sweep_fixture.h"

namespace fencesim::cli::testing::sweep_hash_scheme_test {
namespace {

using nlohmann::json;

const std::string kSweep =
    "sweep --scenario kleppmann-fencing --seeds 1..2 --strategy random --jobs 1";

class SweepHashSchemeTest : public BinaryTest {
 protected:
  void sweep(const std::string& options, const std::string& out) {
    const Result result = fencesim(kSweep + options + " --out " + out);
    ASSERT_EQ(result.code, 0) << result.out << result.err;
  }

  // `folder`'s sweep.json as a fencesim before the scheme was recorded wrote it (no field: its
  // runs hashed the names' bytes).
  void make_old(const std::string& folder) {
    json manifest = read_json(path(folder + "/sweep.json"));
    ASSERT_EQ(manifest["configuration"].value("history_hash_scheme", json()), 2);
    manifest["configuration"].erase("history_hash_scheme");
    write(folder + "/sweep.json", manifest.dump(2));
  }

  // `folder` as a sweep stopped before its last seed leaves it (resume_branch_test cuts so too).
  void interrupt(const std::string& folder) {
    json manifest = read_json(path(folder + "/sweep.json"));
    manifest["interrupted"] = {{"signal", "SIGTERM"},
                               {"seeds_not_run", {{{"first", 2}, {"last", 2}, {"every", 1}}}},
                               {"budget_left_ms", nullptr}};
    write(folder + "/sweep.json", manifest.dump(2));
    for (const std::string name : {"/runs.jsonl", "/run_times.jsonl"}) {
      std::string kept;
      for (const std::string& line : read_lines(path(folder + name))) {
        if (json::parse(line)["seed"] != 2) kept += line + "\n";
      }
      write(folder + name, kept);
    }
  }
};

TEST_F(SweepHashSchemeTest, AMergeRefusesShardsHashedTwoWays) {
  sweep(" --shard 0/2", "s0");
  sweep(" --shard 1/2", "s1");
  make_old("s1");
  expect_usage_error(fencesim("merge --out merged s0 s1"),
                     "merge: 's0' and 's1' are different sweeps (history hash schemes differ)");
  expect_usage_error(fencesim("merge --out merged s1 s0"),
                     "merge: 's1' and 's0' are different sweeps (history hash schemes differ)");
  EXPECT_FALSE(fs::exists(path("merged")));
  // Two old shards hashed alike: they merge, and the merge keeps their scheme.
  make_old("s0");
  const Result old = fencesim("merge --out merged-old s0 s1");
  ASSERT_EQ(old.code, 0) << old.out << old.err;
  EXPECT_EQ(read_json(path("merged-old/sweep.json"))["configuration"]["history_hash_scheme"], 1);
}

TEST_F(SweepHashSchemeTest, AResumeRefusesAFolderHashedAnotherWay) {
  sweep("", "cut");
  interrupt("cut");
  make_old("cut");
  expect_usage_error(
      fencesim("sweep --resume cut --jobs 1"),
      "--resume: the runs in 'cut' hashed their histories another way (scheme 1, names' bytes; "
      "this fencesim hashes by scheme 2, names' hashes): resumed runs would not compare with "
      "them, so sweep again into a new folder");
  // Nothing was touched: still the interrupted sweep it was.
  EXPECT_FALSE(read_json(path("cut/sweep.json"))["interrupted"].is_null());
  // The same folder with this fencesim's scheme resumes.
  json manifest = read_json(path("cut/sweep.json"));
  manifest["configuration"]["history_hash_scheme"] = 2;
  write("cut/sweep.json", manifest.dump(2));
  const Result resumed = fencesim("sweep --resume cut --jobs 1");
  EXPECT_EQ(resumed.code, 0) << resumed.out << resumed.err;
}

}  // namespace
}  // namespace fencesim::cli::testing::sweep_hash_scheme_test
