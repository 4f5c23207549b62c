// End-to-end runs of the built-in scenarios on the real runtime: they pass, reach their marks,
// replay bit for bit, and a broken sink is caught.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <vector>

#include "properties/run.h"
#include "scenarios/builder.h"

namespace fencesim::properties::scenario_runs_test {
namespace {

std::string summary(const RunReport& report) {
  std::string text = std::string(to_string(report.status)) + " " + report.detail;
  for (const Violation& v : report.violations) text += "\n  " + v.invariant + ": " + v.message;
  return text;
}

class BuiltinScenario : public ::testing::TestWithParam<std::string> {};

TEST_P(BuiltinScenario, PassesOnTheCorrectRuntimeForManySeedsAndBothStrategies) {
  const auto registry = scenarios::builtin_scenarios();
  auto pool = std::make_shared<sim::StackPool>();
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    for (sim::Strategy strategy : {sim::Strategy::kRandomWalk, sim::Strategy::kPct}) {
      RunRequest request{GetParam(), seed, strategy, std::nullopt, "", true, pool};
      const RunReport report = run_scenario(registry, request);
      ASSERT_EQ(report.status, RunStatus::kPass) << "seed " << seed << ": " << summary(report);
    }
  }
}

TEST_P(BuiltinScenario, SameSeedGivesTheSameHistoryHash) {
  const auto registry = scenarios::builtin_scenarios();
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    RunRequest request{GetParam(), seed, sim::Strategy::kRandomWalk, std::nullopt, "", true, {}};
    const RunReport first = run_scenario(registry, request);
    const RunReport second = run_scenario(registry, request);
    EXPECT_EQ(first.history_hash, second.history_hash) << "seed " << seed;
    EXPECT_EQ(first.events, second.events) << "seed " << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(Scenarios, BuiltinScenario,
                         ::testing::Values("kleppmann-fencing", "nightly-mix"));

TEST(KleppmannFencing, TheStaleWriteIsRefused) {
  const auto registry = scenarios::builtin_scenarios();
  const RunReport report = run_scenario(registry, RunRequest{"kleppmann-fencing", 7});
  ASSERT_EQ(report.status, RunStatus::kPass) << summary(report);
  EXPECT_EQ(report.marks.at("stale-write-refused"), 1u);
}

TEST(KleppmannFencing, ASinkThatAcceptsStaleTokensIsCaught) {
  const auto registry = scenarios::builtin_scenarios();
  RunRequest request{"kleppmann-fencing", 7};
  request.sink_double = "accept-stale";
  const RunReport report = run_scenario(registry, request);
  ASSERT_EQ(report.status, RunStatus::kViolation);
  ASSERT_FALSE(report.violations.empty());
  EXPECT_EQ(report.violations.front().invariant, "sink-monotonicity");
}

TEST(GcStallWriteBeforeTakeover, ASinkThatChecksThenWritesLaterIsCaught) {
  // The next holder's re-run checks while the stale write is between its check and its write:
  // both pass the check. The reference model sees the sink's verdict differ from its own.
  const auto registry = scenarios::builtin_scenarios();
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    RunRequest request{"gc-stall-write-before-takeover", seed};
    request.sink_double = "non-atomic";
    const RunReport report = run_scenario(registry, request);
    ASSERT_EQ(report.status, RunStatus::kViolation) << "seed " << seed << ": " << summary(report);
    bool by_model = false;
    for (const Violation& v : report.violations) by_model |= v.invariant == "reference-model";
    EXPECT_TRUE(by_model) << summary(report);
    // The same world with the runtime's own sink passes.
    request.sink_double.clear();
    EXPECT_EQ(run_scenario(registry, request).status, RunStatus::kPass) << "seed " << seed;
  }
}

// PCT draws its change points within its horizon, the expected length of a run
// (SchedulerOptions::pct_horizon_steps), so a nightly-mix run passes every one of them: each
// demotes the fiber that ran last. A horizon far past a run's end (red team 32a: 1,000,000 for
// 10,000) leaves PCT at depth 1, fixed priorities and no demotion, and every test passed.
TEST(Runs, APctRunOfTheNightlyMixPassesEveryChangePoint) {
  const auto registry = scenarios::builtin_scenarios();
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    RunRequest request{"nightly-mix", seed, sim::Strategy::kPct};
    request.pct_change_points = 3;
    std::size_t passed = 0;
    std::uint64_t steps = 0;
    const RunReport report =
        run_scenario(registry, request, [&](const sim::World& world, const RunReport&) {
          passed = world.scheduler().pct_change_points_passed();
          steps = world.scheduler().steps();
        });
    EXPECT_EQ(report.status, RunStatus::kPass) << "seed " << seed;
    EXPECT_EQ(passed, 3u) << "seed " << seed << ": " << steps << " steps";
  }
}

TEST(Runs, DifferentSeedsExploreDifferentHistories) {
  const auto registry = scenarios::builtin_scenarios();
  const RunReport a = run_scenario(registry, RunRequest{"nightly-mix", 1});
  const RunReport b = run_scenario(registry, RunRequest{"nightly-mix", 2});
  EXPECT_NE(a.history_hash, b.history_hash);
}

// A run's fault tally counts each kind's faults as fired, as able to act and as having acted, each
// by its own test: the sweep fails a kind whose faults could act and never did (reports/claims.h),
// so an "acted" column that copied "could act" would hide a harness that stopped testing. The
// tally is compared with the world's own fault records, on runs in which some fault had a chance
// to act and did not.
TEST(Runs, TheFaultTallyCountsWhatActedApartFromWhatCouldAct) {
  const auto registry = scenarios::builtin_scenarios();
  std::uint64_t idle = 0;  // faults that could act and did not, over the runs
  // Some of these seeds have a fault that could act and did not.
  for (std::uint64_t seed = 1; seed <= 14; ++seed) {
    std::map<std::string, FaultKindEffect> recounted;
    const RunReport report = run_scenario(
        registry, RunRequest{"swarm", seed}, [&](const sim::World& world, const RunReport&) {
          for (const sim::FaultEffect& effect : world.fault_effects()) {
            FaultKindEffect& kind = recounted[std::string(sim::to_string(effect.kind))];
            ++kind.fired;
            if (effect.could_act()) ++kind.could_act;
            if (effect.acted()) ++kind.acted;
            if (effect.could_act() && !effect.acted()) ++idle;
          }
        });
    EXPECT_EQ(report.fault_effects, recounted) << "seed " << seed;
  }
  ASSERT_GT(idle, 0u) << "no run had a fault that could act and did not: the test tells nothing";
}

// A branch is the seed's run up to the one event it names (a sweep forked there): a run asked to
// branch where its mark was never placed is not that branch, and says so (a harness error), even
// though the run reaches the same mark at other events.
TEST(Runs, ABranchPointIsItsMarkAtItsOwnEvent) {
  const auto registry = scenarios::builtin_scenarios();
  std::map<std::string, std::vector<std::uint64_t>> placed;  // mark -> the events it was placed at
  RunRequest watch{"nightly-mix", 1};
  for (const auto& [mark, count] : run_scenario(registry, watch).marks) {
    watch.branch_marks.insert(mark);
  }
  watch.on_branch_mark = [&](sim::World&, const PlacedMark& mark) {
    placed[mark.name].push_back(mark.event);
  };
  run_scenario(registry, watch);
  auto twice = std::find_if(placed.begin(), placed.end(),
                            [](const auto& mark) { return mark.second.size() >= 2; });
  ASSERT_NE(twice, placed.end()) << "no mark was placed twice in the run";
  const std::vector<std::uint64_t>& at = twice->second;

  RunRequest second{"nightly-mix", 1};
  second.branch = BranchPoint{twice->first, at[1], 1};
  const RunReport branched = run_scenario(registry, second);
  EXPECT_NE(branched.status, RunStatus::kHarnessError) << branched.detail;

  // An event after the mark's first placement at which it was not placed.
  std::uint64_t between = at[0] + 1;
  while (std::find(at.begin(), at.end(), between) != at.end()) ++between;
  RunRequest nowhere{"nightly-mix", 1};
  nowhere.branch = BranchPoint{twice->first, between, 1};
  const RunReport lost = run_scenario(registry, nowhere);
  EXPECT_EQ(lost.status, RunStatus::kHarnessError) << summary(lost);
  EXPECT_NE(lost.detail.find("the branch point was not reached"), std::string::npos) << lost.detail;
}

// An exception out of a fiber of the world (here a workload's own probe) is a harness error of
// the seed that says which seed and what was thrown, and `fencesim run` exits 5 with it (README):
// never a violation of the runtime, never a liveness failure, never a crash.
TEST(Runs, AnExceptionOutOfAFiberIsAHarnessErrorOfItsSeed) {
  scenarios::ScenarioRegistry registry;
  scenarios::ScenarioBuilder("throwing-probe")
      .describe("test only: a probe fiber of the world throws")
      .safety_phase(10 * runtime::kSecond)
      .instance("instance-1")
      .workflow([](sim::World& world, sim::Rng&) {
        sim::Scheduler& scheduler = world.scheduler();
        scheduler.spawn(sim::kWorldNode, "probe", [&scheduler] {
          scheduler.sleep_for(runtime::kSecond);
          throw std::runtime_error("the probe's own");
        });
        return runtime::Workflow{"order", {runtime::StepItem{"s", [](runtime::ExecutionContext&) {
                                             }}}};
      })
      .tree("tenant-1", "order-1", "order")
      .add_to(registry);
  const RunReport report = run_scenario(registry, RunRequest{"throwing-probe", 7});
  EXPECT_EQ(report.status, RunStatus::kHarnessError) << report.detail;
  EXPECT_EQ(report.detail.rfind("seed 7: ", 0), 0u) << report.detail;
  EXPECT_NE(report.detail.find("the probe's own"), std::string::npos) << report.detail;
  EXPECT_EQ(exit_code(report.status), 5);
  EXPECT_EQ(exit_code(RunStatus::kLiveness), 3);
  EXPECT_EQ(exit_code(RunStatus::kViolation), 1);
  EXPECT_EQ(exit_code(RunStatus::kPass), 0);
}

TEST(Runs, UnknownScenarioIsAUsageError) {
  const auto registry = scenarios::builtin_scenarios();
  EXPECT_THROW(run_scenario(registry, RunRequest{"no-such-scenario", 1}), UsageError);
}

}  // namespace
}  // namespace fencesim::properties::scenario_runs_test
