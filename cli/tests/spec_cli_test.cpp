// `fencesim run --spec FILE --seed N` end to end: a spec runs, a failure's replay file carries the
// spec and replays after the spec file is gone, and a bad spec is one line naming file, line and
// key, with exit 2.
#include <set>

#include "cli/tests/command_fixture.h"
#include "tests/paths.h"

namespace fencesim::cli::testing::spec_cli_test {
namespace {

using nlohmann::json;

const std::string kSpec = R"(name = "drifting-fencing"
workload = "kleppmann-fencing"

[[fault]]
kind = "clock-drift"
node = "every-instance"
at = ["0s", "5s"]
amount = [-300, 300]
)";

class SpecCliTest : public CommandTest {};

TEST_F(SpecCliTest, ASpecRunsLikeAScenario) {
  write("drift.toml", kSpec);
  const CommandResult run = fencesim("run --spec drift.toml --seed 3");
  EXPECT_EQ(run.code, 0) << run.out << run.err;
  EXPECT_TRUE(run.out.starts_with("scenario=drifting-fencing seed=3 ")) << run.out;
  EXPECT_NE(run.out.find("status: pass"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("clock-drift instance-1"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("clock-drift instance-2"), std::string::npos) << run.out;
  // The same spec and seed: the same run.
  const CommandResult again = fencesim("run --spec drift.toml --seed 3");
  EXPECT_EQ(again.out.substr(0, again.out.find("wall seconds")),
            run.out.substr(0, run.out.find("wall seconds")));
}

TEST_F(SpecCliTest, AFailingSpecRunReplaysWithoutTheSpecFile) {
  write("specs/drift.toml", kSpec);
  const CommandResult run = fencesim(
      "run --spec specs/drift.toml --seed 2 --sink-double accept-stale --replay-out r.json");
  ASSERT_EQ(run.code, 1) << run.out << run.err;
  EXPECT_EQ(run.out.substr(0, run.out.find('\n')), "fencesim replay r.json");
  const json file = read_json("r.json");
  EXPECT_EQ(file["scenario"], "drifting-fencing");
  EXPECT_EQ(file["spec"], kSpec);
  std::filesystem::remove_all(dir_ / "specs");

  const CommandResult replay = fencesim("replay r.json");
  EXPECT_EQ(replay.code, 1) << replay.out << replay.err;
  EXPECT_NE(replay.out.find("replay matches r.json: status violation"), std::string::npos)
      << replay.out;
  EXPECT_EQ(replay.err, "");

  // Shrunk, it still carries its spec and replays on its own (red team 35d-09: the shrunk file
  // was written from the built-in scenarios, without the spec it needs).
  const CommandResult shrink = fencesim("shrink r.json --out s.json");
  ASSERT_EQ(shrink.code, 0) << shrink.out << shrink.err;
  EXPECT_EQ(read_json("s.json")["spec"], kSpec);
  const CommandResult shrunk = fencesim("replay s.json");
  EXPECT_EQ(shrunk.code, 1) << shrunk.out << shrunk.err;
  EXPECT_NE(shrunk.out.find("replay matches s.json: status violation"), std::string::npos)
      << shrunk.out;
}

TEST_F(SpecCliTest, ABadSpecIsOneLineNamingFileLineAndKey) {
  write("bad.toml",
        "name = \"x\"\nworkload = \"kleppmann-fencing\"\n\n[[fault]]\nkind = \"stal\"\n"
        "node = \"instance-1\"\nat = \"1s\"\nlasting = \"1s\"\n");
  expect_usage_error(fencesim("run --spec bad.toml --seed 1"),
                     "fencesim: bad.toml:5: [[fault]].kind: unknown fault kind 'stal' (known: "
                     "stall, stop, migrate, crash, clock-drift, clock-step, network-delay, "
                     "network-drop, network-duplicate, partition, store-slow, store-down)");
  write("typo.toml", kSpec + "lastng = \"3s\"\n");
  expect_usage_error(fencesim("run --spec typo.toml --seed 1"),
                     "fencesim: typo.toml:9: [[fault]].lastng: unknown key (known: kind, node, "
                     "peer, at, after, occurrence, delay, after_node, aim, within, until, "
                     "until_delay, lasting, amount, probability, chance, count)");
  expect_usage_error(fencesim("run --spec missing.toml --seed 1"),
                     "fencesim: spec file 'missing.toml' not found");
}

TEST_F(SpecCliTest, ExactlyOneOfScenarioAndSpec) {
  write("drift.toml", kSpec);
  expect_usage_error(fencesim("run --spec drift.toml --scenario kleppmann-fencing --seed 1"),
                     "fencesim: run: give exactly one of --scenario NAME and --spec FILE");
  expect_usage_error(fencesim("run --seed 1"),
                     "fencesim: run: give exactly one of --scenario NAME and --spec FILE");
}

TEST_F(SpecCliTest, AWithSpecIsSweptBesideTheBuiltInScenariosUnlessTheSweepIsNarrowed) {
  write("drift.toml", kSpec);
  const auto swept = [&](const std::string& folder) {
    std::set<std::string> names;
    const json summary = json::parse(read(folder + "/summary.json"));
    for (const json& scenario : summary.at("scenarios")) {
      names.insert(scenario.at("name").get<std::string>());
    }
    return names;
  };
  const CommandResult all =
      fencesim("sweep --seeds 1..1 --jobs 1 --with-spec drift.toml --out all");
  EXPECT_EQ(all.code, 0) << all.out << all.err;
  const std::set<std::string> everything = swept("all");
  EXPECT_TRUE(everything.contains("drifting-fencing"));
  EXPECT_TRUE(everything.contains("kleppmann-fencing"));
  EXPECT_GT(everything.size(), 10u);
  const CommandResult narrowed = fencesim(
      "sweep --seeds 1..1 --jobs 1 --scenario kleppmann-fencing --with-spec drift.toml --out one");
  EXPECT_EQ(narrowed.code, 0) << narrowed.out << narrowed.err;
  EXPECT_EQ(swept("one"), std::set<std::string>{"kleppmann-fencing"});
  expect_usage_error(fencesim("sweep --seeds 1..1 --with-spec missing.toml --out bad"),
                     "fencesim: --with-spec: spec file 'missing.toml' not found");
}

TEST_F(SpecCliTest, CheckSpecSaysWhereAnAimedFaultIsAimed) {
  const auto specs = std::filesystem::path(fencesim::testing::source_dir()) / "specs";
  const CommandResult check =
      fencesim("check-spec '" + (specs / "wake-at-own-expiry.toml").string() + "'");
  EXPECT_EQ(check.code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("fault: stop on instance-1, after lease-renewed #1..2 of its node, "
                           "aimed at holder-expiry offset by -24s..-21s, until holder-expiry "
                           "offset by -15ms..0s, count 1"),
            std::string::npos)
      << check.out;
}

TEST_F(SpecCliTest, TheShippedSpecsRun) {
  // Not __FILE__: with ccache's base_dir it is relative to the build directory.
  const auto specs = std::filesystem::path(fencesim::testing::source_dir()) / "specs";
  for (const char* spec : {"stall-and-drift", "nightly-heavy"}) {
    const CommandResult run =
        fencesim("run --spec '" + (specs / spec).string() + ".toml' --seed 1");
    EXPECT_EQ(run.code, 0) << spec << ": " << run.out << run.err;
    EXPECT_TRUE(run.out.starts_with(std::string("scenario=") + spec + " ")) << run.out;
  }
}

}  // namespace
}  // namespace fencesim::cli::testing::spec_cli_test
