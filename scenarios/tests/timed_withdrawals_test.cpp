// The mixes' timed withdrawals (scenarios/window_workload.h, add_timed_withdrawals) are drawn over
// the safety phase and a minute past it: a tree that ended meets a client's withdrawal in the
// quiet phase too, where it must run unfenced and refuse. Red team 44a-13 drew them inside the
// safety phase only: every oracle stayed green and only the snapshots' hashes changed, so the
// window is read here from the runs' own records of the frames withdrawals got.
#include <gtest/gtest.h>

#include <cstdint>

#include "properties/run.h"
#include "scenarios/scenario.h"

namespace fencesim::scenarios::timed_withdrawals_test {
namespace {

TEST(TimedWithdrawals, TheMixesWithdrawInTheSafetyPhaseAndPastIt) {
  const ScenarioRegistry registry = builtin_scenarios();
  std::uint64_t during = 0;
  std::uint64_t after = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    properties::run_scenario(
        registry, properties::RunRequest{"nightly-mix", seed},
        [&](const sim::World& world, const properties::RunReport&) {
          for (const sim::HistoryEvent& e : world.history().events()) {
            if (e.world != sim::WorldEventKind::kObserved || e.runtime.holder != "withdrawal") {
              continue;
            }
            ++(e.time_ns < world.options().safety_phase_ns ? during : after);
          }
        });
  }
  // Seeds 1..6 when written: withdrawals in both phases in every seed of a few.
  EXPECT_GE(during, 6u);
  EXPECT_GE(after, 3u);
}

}  // namespace
}  // namespace fencesim::scenarios::timed_withdrawals_test
