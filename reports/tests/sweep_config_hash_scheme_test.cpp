// sweep.json's history hash scheme (reports/sweep_config.h; sim::HistoryHashScheme): written with
// every configuration, part of what two shards must share (the hashes of two schemes never
// compare: a merge would count each history once per scheme), and read as scheme 1, the names'
// bytes, from a sweep.json written before it was recorded (every hash was made so then).
#include <gtest/gtest.h>

#include "reports/run_record.h"
#include "reports/sweep_config.h"
#include "reports/tests/sweep_manifest_sample.h"

namespace fencesim::reports::sweep_config_hash_scheme_test {
namespace {

using nlohmann::json;

SweepManifest sweep() { return testing::one_scenario_sweep("random", 4); }

SweepManifest read(const json& manifest) {
  return sweep_manifest_from_json(manifest, "s/sweep.json");
}

TEST(SweepConfigHashScheme, ASweepRecordsThisFencesimsSchemeAndItTellsSweepsApart) {
  // A new sweep hashes as this fencesim does: scheme 2, the names' hashes.
  EXPECT_EQ(sweep().configuration.history_hash_scheme, sim::kCurrentHistoryHashScheme);
  EXPECT_EQ(to_json(sweep())["configuration"]["history_hash_scheme"], 2);
  EXPECT_EQ(read(to_json(sweep())).configuration, sweep().configuration);
  SweepManifest bytes = sweep();
  bytes.configuration.history_hash_scheme = sim::HistoryHashScheme::kNameBytes;
  EXPECT_EQ(to_json(bytes)["configuration"]["history_hash_scheme"], 1);
  EXPECT_EQ(read(to_json(bytes)).configuration, bytes.configuration);
  EXPECT_NE(bytes.configuration, sweep().configuration);
}

TEST(SweepConfigHashScheme, ASweepJsonFromBeforeReadsAsTheNamesBytes) {
  json old = to_json(sweep());
  old["configuration"].erase("history_hash_scheme");
  const SweepManifest back = read(old);
  EXPECT_EQ(back.configuration.history_hash_scheme, sim::HistoryHashScheme::kNameBytes);
  // So a merge tells it from a shard of today's fencesim.
  EXPECT_NE(back.configuration, sweep().configuration);
}

TEST(SweepConfigHashScheme, ASchemeNotKnownIsRefused) {
  for (const json& value : {json(0), json(3), json("2"), json(-1)}) {
    json manifest = to_json(sweep());
    manifest["configuration"]["history_hash_scheme"] = value;
    try {
      read(manifest);
      ADD_FAILURE() << "accepted " << value.dump();
    } catch (const SweepFileError& error) {
      EXPECT_NE(std::string(error.what()).find("history_hash_scheme"), std::string::npos)
          << error.what();
    }
  }
}

}  // namespace
}  // namespace fencesim::reports::sweep_config_hash_scheme_test
