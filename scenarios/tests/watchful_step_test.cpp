// A watchful step (scenarios/watchful_step.h) stops at the first look that finds its signal
// aborted, with the signal's reason: the rest of its body never runs. A step that went on after
// such a look would run its body under an aborted signal, and its end would no longer say why the
// runtime stopped it (the cancel oracles read its looks, not what it did after them).
#include "scenarios/watchful_step.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "properties/run.h"
#include "scenarios/builder.h"

namespace fencesim::scenarios::watchful_step_test {
namespace {

using runtime::EventKind;
using runtime::ExecutionContext;
using runtime::kSecond;

// One tree of one step that watches its signal for 25 s before its body; a client cancels the tree
// at 3 s, which the holder learns within a renewal interval (10 s), long before the watch ends.
TEST(WatchfulStep, ALookThatFindsTheSignalAbortedEndsTheStepWithItsReason) {
  ScenarioRegistry registry;
  auto body_runs = std::make_shared<int>(0);
  ScenarioBuilder("watched-cancel")
      .safety_phase(60 * kSecond)
      .instance("instance-1")
      .workflow([body_runs](sim::World& world, sim::Rng&) {
        runtime::StepItem step{"long", [body_runs](ExecutionContext&) { ++*body_runs; }};
        return runtime::Workflow{"order", {watchful(world, step, 25 * kSecond)}};
      })
      .tree("tenant-1", "order-1", "order")
      .setup([](sim::World& world) {
        world.cancel_at(3 * kSecond, runtime::LeaseKey{"tenant-1", "order-1"});
      })
      .add_to(registry);
  std::vector<std::string> outcomes;
  std::int64_t ended_ns = 0;
  int looks = 0;
  const properties::RunReport report = properties::run_scenario(
      registry, properties::RunRequest{"watched-cancel", 1},
      [&](const sim::World& world, const properties::RunReport&) {
        for (const sim::HistoryEvent& e : world.history().events()) {
          if (e.world == sim::WorldEventKind::kRuntime &&
              e.runtime.kind == EventKind::kStepEnded) {
            outcomes.push_back(e.runtime.detail.str());
            ended_ns = e.time_ns;
          }
          if (e.world == sim::WorldEventKind::kObserved &&
              e.runtime.holder.str() == "signal") {
            ++looks;
          }
        }
      });
  EXPECT_EQ(report.status, properties::RunStatus::kPass);
  EXPECT_EQ(*body_runs, 0);
  EXPECT_EQ(outcomes, std::vector<std::string>{"execution.cancelled"});
  // It looks every second: the cancel, learnt by 13 s at the latest, ends the step a second later,
  // not when the watch would have ended (red team 35b-30: one look, at 25 s).
  EXPECT_LT(ended_ns, 14 * kSecond);
  EXPECT_GE(looks, 3);
}

}  // namespace
}  // namespace fencesim::scenarios::watchful_step_test
