// What a fiber's step tells the explorer it touched (sim/choice.h, ChoiceSource::touch): the
// partial-order reduction (explore/footprint.h) lets two steps commute when their footprints share
// nothing, so a touch the simulator forgets to report makes the reduced search skip orders that
// matter and still say "complete". The explorer's own tests build their worlds from scratch and
// cannot see which touches the network and the scheduler report; these can.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/execution_context.h"
#include "sim/choice.h"
#include "sim/network.h"
#include "sim/scheduler.h"
#include "sim/tests/one_step_world.h"
#include "sim/tests/scheduler_test_util.h"
#include "sim/world.h"

namespace fencesim::sim::testing::step_footprint_test {
namespace {

constexpr NodeId kStore = 1;
constexpr NodeId kClientA = 2;
constexpr NodeId kClientB = 3;

// Takes every default and keeps, per step, the node of the fiber that ran it and what it touched.
class TouchRecorder final : public ChoiceSource {
 public:
  struct Step {
    NodeId node = kWorldNode;
    std::set<std::uint32_t> touched;
  };
  std::size_t pick_fiber(std::span<const Candidate> runnable) override {
    steps.push_back(Step{runnable[0].node, {}});
    return 0;
  }
  std::size_t pick_value(std::string_view, std::size_t) override { return 0; }
  void touch(std::uint32_t object) override {
    if (!steps.empty()) steps.back().touched.insert(object);
  }
  // Whether a step of a fiber on `node` touched `object` (kTouchAll: touched everything).
  bool touched(NodeId node, std::uint32_t object) const {
    for (const Step& step : steps) {
      if (step.node == node && step.touched.contains(object)) return true;
    }
    return false;
  }
  std::vector<Step> steps;
};

// Two clients send one request each to the store at the same instant: the store sees them in the
// order they were sent, so the two sends must not commute: each step that sends touches the
// destination.
TEST(StepFootprint, ASendTouchesItsDestination) {
  for (const bool shaped : {false, true}) {
    TouchRecorder recorder;
    Scheduler world({.seed = 1, .chooser = &recorder});
    NetworkOptions options;
    if (!shaped) options.latency_max_ns = options.latency_min_ns;  // no draw shapes a message
    Network network(world, Rng(3), options, [](NodeId, NodeId, const std::string&, const char*) {});
    std::vector<NodeId> arrivals;
    for (const NodeId client : {kClientA, kClientB}) {
      world.spawn(client, "client", [&network, &arrivals, client] {
        network.call<int>(client, kStore, "request", [&arrivals, client] {
          arrivals.push_back(client);
          return 0;
        });
      });
    }
    EXPECT_EQ(world.run(), RunStatus::kIdle);
    EXPECT_EQ(arrivals.size(), 2u);
    EXPECT_TRUE(recorder.touched(kClientA, kStore)) << (shaped ? "shaped" : "fixed latency");
    EXPECT_TRUE(recorder.touched(kClientB, kStore)) << (shaped ? "shaped" : "fixed latency");
    // A latency drawn from a range is a draw whose order between two sends changes both messages.
    EXPECT_EQ(recorder.touched(kClientA, kTouchNetworkRng), shaped);
  }
}

// A step that starts a fiber elsewhere, or wakes one, changes that node's state.
TEST(StepFootprint, ASpawnAndAWakeTouchTheOtherFibersNode) {
  TouchRecorder recorder;
  Scheduler world({.seed = 1, .chooser = &recorder});
  Waiter waiter;
  bool woken = false;
  world.spawn(kClientB, "sleeper", [&world, &waiter, &woken] {
    world.block(waiter);
    woken = true;
  });
  world.spawn(kClientA, "starter", [&world, &waiter] {
    world.spawn(kStore, "started", [] {});
    world.wake(waiter);
  });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  EXPECT_TRUE(woken);
  EXPECT_TRUE(recorder.touched(kClientA, kStore)) << "the spawn";
  EXPECT_TRUE(recorder.touched(kClientA, kClientB)) << "the wake";
}

// The one-step world (one_step_world.h) driven by `recorder`, its step waking once; `step` runs
// inside the step first. Returns the instance's node.
NodeId run_one_step(TouchRecorder& recorder, const FaultPlan& plan,
                    const std::function<void(World&)>& step) {
  return testing::run_one_step_world({.seed = 5,
                                      .safety_phase_ns = 20 * kSec,
                                      .step_seconds = 1,
                                      .chooser = &recorder,
                                      .in_step = step},
                                     plan.faults)
      .instance;
}

// A fault a protocol event triggers is applied inside the step that emitted the event, and may
// pause, kill or cut off any node: that step commutes with nothing.
TEST(StepFootprint, AFaultAppliedFromAStepTouchesEverything) {
  for (const bool triggered : {false, true}) {
    TouchRecorder recorder;
    FaultPlan plan;
    if (triggered) {
      Fault stall{FaultKind::kStall, "instance-1"};
      stall.trigger = Trigger{runtime::EventKind::kStepStarted};
      stall.duration_ns = kSec;
      plan.faults.push_back(stall);
    }
    const NodeId instance = run_one_step(recorder, plan, nullptr);
    EXPECT_EQ(recorder.touched(instance, kTouchAll), triggered)
        << (triggered ? "a stall triggered by the step's start" : "no fault");
  }
}

// A data choice made inside a step makes what the step does depend on it.
TEST(StepFootprint, ADataChoiceInAStepTouchesEverything) {
  TouchRecorder recorder;
  const NodeId instance =
      run_one_step(recorder, FaultPlan{}, [](World& world) { world.choose("how long", 3); });
  EXPECT_TRUE(recorder.touched(instance, kTouchAll));
}

}  // namespace
}  // namespace fencesim::sim::testing::step_footprint_test
