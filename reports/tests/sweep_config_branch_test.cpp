// sweep.json's branch options (reports/sweep_config.h; --branch-at, --branches): they round-trip,
// two configurations that differ only in them are not equal (what `fencesim merge` compares), a
// sweep.json written before they were recorded reads as not branching, and a half-recorded pair
// is refused naming the fields.
#include <gtest/gtest.h>

#include "reports/run_record.h"
#include "reports/sweep_config.h"
#include "reports/tests/sweep_manifest_sample.h"

namespace fencesim::reports::sweep_config_branch_test {
namespace {

using nlohmann::json;

SweepManifest plain() { return testing::one_scenario_sweep("drawn", 4); }

SweepManifest round_trip(const SweepManifest& m) {
  return sweep_manifest_from_json(json::parse(to_json(m).dump()), "s/sweep.json");
}

TEST(SweepConfigBranch, TheBranchOptionsRoundTripAndTellSweepsApart) {
  SweepManifest branching = plain();
  branching.configuration.branch_marks = {"stale-write-refused", "lease-yielded"};
  branching.configuration.branches = 8;
  const SweepManifest back = round_trip(branching);
  EXPECT_EQ(back.configuration, branching.configuration);
  EXPECT_EQ(to_json(branching)["configuration"]["branch_at"],
            json::array({"lease-yielded", "stale-write-refused"}));
  EXPECT_EQ(round_trip(plain()).configuration, plain().configuration);
  EXPECT_NE(back.configuration, plain().configuration);
  SweepManifest more = branching;
  more.configuration.branches = 4;
  EXPECT_NE(round_trip(more).configuration, back.configuration);
}

TEST(SweepConfigBranch, ASweepJsonFromBeforeReadsAsNotBranching) {
  json old = to_json(plain());
  old["configuration"].erase("branch_at");
  old["configuration"].erase("branches");
  const SweepManifest back = sweep_manifest_from_json(old, "s/sweep.json");
  EXPECT_TRUE(back.configuration.branch_marks.empty());
  EXPECT_EQ(back.configuration.branches, 0u);
  EXPECT_EQ(back.configuration, plain().configuration);
}

TEST(SweepConfigBranch, AHalfRecordedPairIsRefused) {
  const auto error_of = [](const json& manifest) {
    try {
      sweep_manifest_from_json(manifest, "s/sweep.json");
    } catch (const SweepFileError& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  json marks_only = to_json(plain());
  marks_only["configuration"]["branch_at"] = json::array({"stale-write-refused"});
  EXPECT_EQ(error_of(marks_only),
            "s/sweep.json: fields 'branch_at' and 'branches': both set (a branching sweep) or "
            "neither");
  json count_only = to_json(plain());
  count_only["configuration"]["branches"] = 3;
  EXPECT_EQ(error_of(count_only), error_of(marks_only));
  json twice = to_json(plain());
  twice["configuration"]["branch_at"] = json::array({"lease-yielded", "lease-yielded"});
  twice["configuration"]["branches"] = 3;
  EXPECT_EQ(error_of(twice), "s/sweep.json: field 'branch_at' names a mark twice");
}

}  // namespace
}  // namespace fencesim::reports::sweep_config_branch_test
