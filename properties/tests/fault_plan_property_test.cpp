// RapidCheck over arbitrary fault plans and scheduler seeds: on the correct runtime every
// invariant holds, and a run is replayed bit for bit. A failure shrinks to a minimal plan.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "properties/fault_plan_gen.h"
#include "properties/run.h"

namespace fencesim::properties::fault_plan_property_test {
namespace {

const PlanTopology kNightlyMix{{"instance-1", "instance-2", "instance-3"},
                               {"lease-store", "payments", "ledger"},
                               180'000'000'000,
                               1000};

std::string explain(const RunReport& report) {
  std::string text = std::string(to_string(report.status)) + " " + report.detail;
  for (const Violation& v : report.violations) text += "; " + v.invariant + ": " + v.message;
  for (const sim::Fault& f : report.plan.faults) text += "\n  fault: " + sim::describe(f);
  return text;
}

RC_GTEST_PROP(FaultPlans, EveryInvariantHoldsOnTheCorrectRuntime, ()) {
  const auto registry = scenarios::builtin_scenarios();
  const sim::FaultPlan plan = *gen_fault_plan(kNightlyMix, 12);
  const auto seed = *rc::gen::inRange<std::uint64_t>(1, 1'000'000);
  const bool pct = *rc::gen::arbitrary<bool>();
  RunRequest request{"nightly-mix", seed, pct ? sim::Strategy::kPct : sim::Strategy::kRandomWalk};
  request.plan_override = plan;
  const RunReport report = run_scenario(registry, request);
  RC_ASSERT(report.plan == plan);
  if (report.status != RunStatus::kPass) RC_FAIL(explain(report));
}

RC_GTEST_PROP(FaultPlans, TheSameSeedAndPlanReplayBitForBit, ()) {
  const auto registry = scenarios::builtin_scenarios();
  RunRequest request{"nightly-mix", *rc::gen::inRange<std::uint64_t>(1, 1'000'000)};
  request.plan_override = *gen_fault_plan(kNightlyMix, 6);
  const RunReport first = run_scenario(registry, request);
  const RunReport second = run_scenario(registry, request);
  RC_ASSERT(first.history_hash == second.history_hash);
  RC_ASSERT(first.events == second.events);
}

TEST(FaultPlans, AStaleAcceptingSinkIsCaughtByAPlanThatStallsAHolder) {
  // The harness must bite: with a broken sink, the plan that stalls the holder mid-write makes
  // the run fail on sink monotonicity.
  const auto registry = scenarios::builtin_scenarios();
  RunRequest request{"kleppmann-fencing", 3};
  request.sink_double = "accept-stale";
  const RunReport report = run_scenario(registry, request);
  ASSERT_EQ(report.status, RunStatus::kViolation);
  EXPECT_EQ(report.violations.front().invariant, "sink-monotonicity");
  // Without the stall there is no stale write, and nothing to catch.
  request.plan_override = sim::FaultPlan{};
  EXPECT_EQ(run_scenario(registry, request).status, RunStatus::kPass);
}

}  // namespace
}  // namespace fencesim::properties::fault_plan_property_test
