// The explorer: complete within a bound on the small worlds, a planted bug found, the reduction
// never losing a violation the full search finds, and a failing schedule's choice log replaying it.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "explore/explorer.h"
#include "explore/replay_chooser.h"
#include "sim/waiter.h"
#include "sim/world.h"

namespace fencesim::explore::explore_test {
namespace {

// A world of two plain fibers on two nodes, each waking at 0 s, 1 s, ... `steps` s: at each of
// those instants both are runnable, a choice point of two. With `shared`, each step also touches
// the other fiber's node (as a message to it would), so no two steps commute.
scenarios::Scenario sleeping_world(int steps, bool shared) {
  scenarios::Scenario scenario;
  scenario.name = shared ? "test-steps-shared" : "test-steps-apart";
  scenario.build = [steps, shared](sim::World& world) {
    world.add_lease_store();
    const sim::NodeId a = world.add_sink("a");
    const sim::NodeId b = world.add_sink("b");
    for (const auto& [self, other] : {std::pair{a, b}, std::pair{b, a}}) {
      world.scheduler().spawn(self, "stepper", [&world, steps, shared, other = other] {
        for (int i = 0; i < steps; ++i) {
          if (shared) world.scheduler().note_touch(other);
          world.scheduler().sleep_for(runtime::kSecond);
        }
        if (shared) world.scheduler().note_touch(other);
      });
    }
  };
  return scenario;
}

// A world whose two fibers, on two nodes that each touch the other's, both wake at 1 s: the order
// they run in then is the explorer's choice. When b runs first, a fails: it throws (`how` "throw":
// a harness error) or waits for a wake nobody sends (`how` "hang": a deadlock, a liveness
// failure). The other order passes.
scenarios::Scenario failing_when_b_runs_first(const std::string& how) {
  scenarios::Scenario scenario;
  scenario.name = "test-fails-by-" + how;
  scenario.build = [how](sim::World& world) {
    world.add_lease_store();
    const sim::NodeId a = world.add_sink("a");
    const sim::NodeId b = world.add_sink("b");
    auto b_ran = std::make_shared<bool>(false);
    auto never = std::make_shared<sim::Waiter>();
    world.scheduler().spawn(b, "b", [&world, a, b_ran] {
      world.scheduler().sleep_for(runtime::kSecond);
      world.scheduler().note_touch(a);
      *b_ran = true;
    });
    world.scheduler().spawn(a, "a", [&world, b, b_ran, never, how] {
      world.scheduler().sleep_for(runtime::kSecond);
      world.scheduler().note_touch(b);
      if (!*b_ran) return;
      if (how == "throw") throw std::runtime_error("a ran after b");
      world.scheduler().block(*never);
    });
  };
  return scenario;
}

ExploreResult explore_one(const scenarios::Scenario& scenario, bool reduce, int bound) {
  scenarios::ScenarioRegistry registry;
  registry.add(scenario);
  ExploreOptions options;
  options.scenario = scenario.name;
  options.bound = bound;
  options.reduce = reduce;
  return explore(registry, options);
}

TEST(Explorer, ReductionCollapsesStepsOfDifferentNodes) {
  // Four instants with two runnable fibers: 16 orders within a bound that allows them all; all
  // equivalent when the nodes share nothing, so no race asks for a second run.
  const ExploreResult full = explore_one(sleeping_world(3, false), false, 100);
  const ExploreResult reduced = explore_one(sleeping_world(3, false), true, 100);
  EXPECT_TRUE(full.complete);
  EXPECT_TRUE(reduced.complete);
  EXPECT_EQ(full.schedules, 16u);
  EXPECT_EQ(reduced.schedules, 1u);
}

TEST(Explorer, ReductionKeepsOrdersOfStepsThatConflict) {
  const ExploreResult full = explore_one(sleeping_world(3, true), false, 100);
  const ExploreResult reduced = explore_one(sleeping_world(3, true), true, 100);
  EXPECT_TRUE(reduced.complete);
  EXPECT_EQ(full.schedules, 16u);
  EXPECT_EQ(reduced.schedules, full.schedules);
}

// Four fibers, one step each: X and Y touch one object (node d), Z and W another (node f). Of the
// 4! orders only two relative orders matter, X's and Y's and Z's and W's: four classes. The
// reduced search runs each class exactly once, and every one of them (a reduction that ran a
// class twice spends schedules; one that skipped a class loses orders a bug may need).
scenarios::Scenario two_races_world(std::set<std::string>* orders) {
  scenarios::Scenario scenario;
  scenario.name = "test-two-races";
  scenario.build = [orders](sim::World& world) {
    world.add_lease_store();
    const sim::NodeId a = world.add_sink("a");
    const sim::NodeId b = world.add_sink("b");
    const sim::NodeId c = world.add_sink("c");
    const sim::NodeId d = world.add_sink("d");
    const sim::NodeId e = world.add_sink("e");
    const sim::NodeId f = world.add_sink("f");
    auto order = std::make_shared<std::string>();
    for (const auto& [node, name, object] : {std::tuple{a, 'X', d}, std::tuple{b, 'Y', d},
                                             std::tuple{c, 'Z', f}, std::tuple{e, 'W', f}}) {
      world.scheduler().spawn(node, std::string(1, name),
                              [&world, orders, order, name = name, object = object] {
                                world.scheduler().note_touch(object);
                                *order += name;
                                if (order->size() == 4) orders->insert(*order);
                              });
    }
  };
  return scenario;
}

TEST(Explorer, TwoIndependentRacesAreRunOnceInEachOfTheirFourClasses) {
  std::set<std::string> full_orders;
  const ExploreResult full = explore_one(two_races_world(&full_orders), false, 100);
  std::set<std::string> reduced_orders;
  const ExploreResult reduced = explore_one(two_races_world(&reduced_orders), true, 100);
  EXPECT_TRUE(full.complete);
  EXPECT_TRUE(reduced.complete);
  EXPECT_EQ(full.schedules, 24u);
  EXPECT_EQ(full_orders.size(), 24u);
  EXPECT_EQ(reduced.schedules, 4u);
  std::set<std::pair<bool, bool>> classes;
  for (const std::string& order : reduced_orders) {
    classes.emplace(order.find('X') < order.find('Y'), order.find('Z') < order.find('W'));
  }
  EXPECT_EQ(classes.size(), 4u);
}

TEST(Explorer, TheBoundLimitsTheSchedules) {
  // One delay: the default path, or one of the four instants with the other fiber first.
  EXPECT_EQ(explore_one(sleeping_world(3, true), false, 0).schedules, 1u);
  EXPECT_EQ(explore_one(sleeping_world(3, true), false, 1).schedules, 5u);
  const ExploreResult limited = [] {
    scenarios::ScenarioRegistry registry;
    registry.add(sleeping_world(3, true));
    ExploreOptions options;
    options.scenario = "test-steps-shared";
    options.bound = 100;
    options.reduce = false;
    options.max_schedules = 7;
    return explore(registry, options);
  }();
  EXPECT_FALSE(limited.complete);
  EXPECT_EQ(limited.schedules, 7u);
}

// A race whose later step's fiber was not runnable yet at the earlier step's pick: B (first in
// spawn order) and A are runnable at 0 s; A's step starts C, and C's step touches B's node. B and
// A commute, B and C do not, and C can run before B only if A runs first: the reduction must
// reverse the race at B's pick by trying every fiber there (one of them leads to C), or no
// schedule it runs has C before B, though a schedule does.
scenarios::Scenario woken_racer_world(std::vector<std::string>* orders) {
  scenarios::Scenario scenario;
  scenario.name = "test-woken-racer";
  scenario.build = [orders](sim::World& world) {
    world.add_lease_store();
    const sim::NodeId a = world.add_sink("a");
    const sim::NodeId b = world.add_sink("b");
    const sim::NodeId c = world.add_sink("c");
    orders->emplace_back();
    world.scheduler().spawn(b, "b", [orders] { orders->back() += 'B'; });
    world.scheduler().spawn(a, "a", [&world, orders, b, c] {
      orders->back() += 'A';
      world.scheduler().spawn(c, "c", [&world, orders, b] {
        world.scheduler().note_touch(b);
        orders->back() += 'C';
      });
    });
  };
  return scenario;
}

TEST(Explorer, ReductionReversesARaceWithAFiberNotYetRunnable) {
  for (const bool reduce : {false, true}) {
    std::vector<std::string> orders;
    const ExploreResult result = explore_one(woken_racer_world(&orders), reduce, 100);
    EXPECT_TRUE(result.complete);
    bool c_before_b = false;
    bool b_before_c = false;
    for (const std::string& order : orders) {
      ASSERT_EQ(order.size(), 3u) << order;
      (order.find('C') < order.find('B') ? c_before_b : b_before_c) = true;
    }
    EXPECT_TRUE(b_before_c) << (reduce ? "reduced" : "full");
    EXPECT_TRUE(c_before_b) << (reduce ? "reduced" : "full") << ": " << orders.size()
                            << " schedules, none with C's step before B's";
  }
}

struct Found {
  ExploreResult result;
  std::set<std::string> invariants;
  std::vector<ExploredFailure> failures;
};

Found explore_builtin(const std::string& scenario, bool reduce, int bound,
                      const std::string& sink_double = "") {
  const scenarios::ScenarioRegistry registry = scenarios::builtin_scenarios();
  ExploreOptions options;
  options.scenario = scenario;
  options.bound = bound;
  options.reduce = reduce;
  options.sink_double = sink_double;
  Found found;
  found.result = explore(registry, options, [&found](const ExploredFailure& failure) {
    for (const properties::Violation& v : failure.report.violations) {
      found.invariants.insert(v.invariant);
    }
    if (found.failures.size() < 3) found.failures.push_back(failure);
    return true;
  });
  return found;
}

TEST(Explorer, SmallWorldIsCompleteWithoutViolationsWithinABound) {
  const Found found = explore_builtin("explore-yield-sibling", true, 1);
  EXPECT_TRUE(found.result.complete);
  EXPECT_EQ(found.result.failures, 0u) << *found.invariants.begin();
  EXPECT_GT(found.result.schedules, 1u);
}

// The planted bug: every sink accepts stale tokens. The reduced search must find every invariant
// the full search finds, in fewer (or as many) schedules.
TEST(Explorer, ReductionLosesNoViolationOfAPlantedBug) {
  const Found full = explore_builtin("explore-two-holders-pause", false, 1, "accept-stale");
  const Found reduced = explore_builtin("explore-two-holders-pause", true, 1, "accept-stale");
  ASSERT_TRUE(full.result.complete);
  ASSERT_TRUE(reduced.result.complete);
  EXPECT_GT(full.result.failures, 0u);
  EXPECT_TRUE(full.invariants.contains("sink-monotonicity"));
  EXPECT_EQ(reduced.invariants, full.invariants);
  EXPECT_LE(reduced.result.schedules, full.result.schedules);
}

// The reduction's other half: a run that reaches a state an earlier schedule already covered (its
// steps so far commute with a done alternative's) is cut short there. Seen on a real world: the
// two holders' pause, bound 1, where the full search cuts nothing.
TEST(Explorer, TheReductionCutsRunsShortAtCoveredStates) {
  const Found reduced = explore_builtin("explore-two-holders-pause", true, 1);
  const Found full = explore_builtin("explore-two-holders-pause", false, 1);
  ASSERT_TRUE(reduced.result.complete);
  ASSERT_TRUE(full.result.complete);
  EXPECT_GT(reduced.result.covered_runs, 0u);
  EXPECT_LE(reduced.result.covered_runs, reduced.result.schedules);
  EXPECT_EQ(full.result.covered_runs, 0u);
  EXPECT_LT(reduced.result.schedules, full.result.schedules);
}

// The two holders' pause explored at bound 0 with the reduction on, every sink accepting stale
// tokens (the planted bug): a small search that finds failures.
ExploreOptions stale_sinks_at_bound_zero() {
  ExploreOptions options;
  options.scenario = "explore-two-holders-pause";
  options.bound = 0;
  options.reduce = true;
  options.sink_double = "accept-stale";
  return options;
}

// The result's tally names each failing schedule by its first invariant (what `fencesim explore`
// prints), one count per failing schedule.
TEST(Explorer, TheTallyCountsEachFailureUnderItsFirstInvariant) {
  std::map<std::string, std::uint64_t> first_invariants;
  const scenarios::ScenarioRegistry registry = scenarios::builtin_scenarios();
  ExploreOptions options = stale_sinks_at_bound_zero();
  const ExploreResult result =
      explore(registry, options, [&first_invariants](const ExploredFailure& failure) {
        if (!failure.report.violations.empty()) {
          ++first_invariants[failure.report.violations.front().invariant];
        }
        return true;
      });
  ASSERT_GT(result.failures, 0u);
  EXPECT_EQ(result.by_invariant, first_invariants);
  EXPECT_FALSE(result.by_invariant.contains("violation"));
}

// A failing schedule is any that does not pass: a harness error or a liveness failure found by
// exploration is counted, tallied under its status and handed on (to write its replay file) as
// a violation is. An explorer that counted violations only would call these worlds clean.
TEST(Explorer, EveryFailingStatusIsCountedAndHandedOn) {
  for (const auto& [how, status] :
       {std::pair{std::string("throw"), properties::RunStatus::kHarnessError},
        std::pair{std::string("hang"), properties::RunStatus::kLiveness}}) {
    SCOPED_TRACE(how);
    scenarios::ScenarioRegistry registry;
    registry.add(failing_when_b_runs_first(how));
    ExploreOptions options;
    options.scenario = "test-fails-by-" + how;
    options.bound = 1;
    options.reduce = false;
    std::vector<properties::RunStatus> handed;
    const ExploreResult result = explore(registry, options, [&handed](const ExploredFailure& f) {
      handed.push_back(f.report.status);
      return true;
    });
    ASSERT_TRUE(result.complete);
    EXPECT_GE(result.failures, 1u);
    EXPECT_LT(result.failures, result.schedules);  // a first passes
    EXPECT_EQ(handed, std::vector<properties::RunStatus>(result.failures, status));
    const std::map<std::string, std::uint64_t> tally{
        {std::string(properties::to_string(status)), result.failures}};
    EXPECT_EQ(result.by_invariant, tally);
  }
}

// The seed asked for is the seed explored: every schedule runs under it, and each failure's report
// (what its replay file records) names it. An explorer that dropped it would explore seed 0's
// world under another seed's name, and its replay files would name a run that never failed.
TEST(Explorer, EverySchedulesRunIsOfTheSeedAskedFor) {
  const scenarios::ScenarioRegistry registry = scenarios::builtin_scenarios();
  ExploreOptions options = stale_sinks_at_bound_zero();
  options.seed = 7;
  std::vector<std::uint64_t> seeds;
  const ExploreResult result = explore(registry, options, [&seeds](const ExploredFailure& f) {
    seeds.push_back(f.report.request.seed);
    return true;
  });
  ASSERT_GT(result.failures, 0u);
  EXPECT_EQ(seeds, std::vector<std::uint64_t>(result.failures, 7u));
}

// A replay matches only a run that asked for every logged choice, each within its alternatives:
// a log left with choices unread (the run ended early, or the log is another run's), a log run
// out, or an index past the alternatives is no match, whatever the history says.
TEST(ReplayChooser, MatchesOnlyWhenEveryLoggedChoiceWasAskedForInRange) {
  const std::vector<sim::Candidate> three(3);
  {
    ReplayChooser chooser({2, 1});
    EXPECT_EQ(chooser.pick_fiber(three), 2u);
    EXPECT_EQ(chooser.pick_value("delay", 1), 0u);  // one alternative: no choice, nothing read
    EXPECT_EQ(chooser.pick_value("delay", 4), 1u);
    EXPECT_TRUE(chooser.matched());
  }
  {
    ReplayChooser unread({2, 1, 0});
    (void)unread.pick_fiber(three);
    (void)unread.pick_fiber(three);
    EXPECT_FALSE(unread.matched());
  }
  {
    ReplayChooser run_out({2});
    (void)run_out.pick_fiber(three);
    EXPECT_EQ(run_out.pick_fiber(three), 0u);  // past the log: the first alternative
    EXPECT_FALSE(run_out.matched());
  }
  {
    ReplayChooser past({5});
    EXPECT_EQ(past.pick_fiber(three), 0u);
    EXPECT_FALSE(past.matched());
  }
}

TEST(Explorer, AFailingScheduleReplaysFromItsChoiceLog) {
  const Found found = explore_builtin("explore-two-holders-pause", true, 0, "accept-stale");
  ASSERT_FALSE(found.failures.empty());
  for (const ExploredFailure& failure : found.failures) {
    ReplayChooser chooser(failure.choices);
    sim::ChoiceSource* driver = &chooser;
    const scenarios::ScenarioRegistry registry = driven_registry(
        scenarios::builtin_scenarios(), "explore-two-holders-pause", &driver);
    properties::RunRequest request = failure.report.request;
    request.stack_pool = nullptr;
    const properties::RunReport again = properties::run_scenario(registry, request);
    EXPECT_TRUE(chooser.matched());
    EXPECT_EQ(again.history_hash, failure.report.history_hash);
    EXPECT_EQ(again.status, failure.report.status);
  }
}

}  // namespace
}  // namespace fencesim::explore::explore_test
