// When a crashed instance comes back: after its fault's `lasting`, or, with no lasting (0), only in
// the quiet phase (docs/specs.md). The quiet phase is where every tree must complete; an instance
// the heal forgot to restart is one fewer worker there, and in a world of three a correct runtime
// still completes every tree without it, so no sweep would notice.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "runtime/execution_context.h"
#include "sim/world.h"

namespace fencesim::sim::crash_restart_test {
namespace {

using runtime::kSecond;

constexpr std::int64_t kSafetyNs = 40 * kSecond;

// One lease store and two instances; one tree whose one step wakes every second for 25 s; the
// crash is of the instance that took the tree (instance-1; instance-2 starts at 2 s).
std::unique_ptr<World> run_crashed(std::int64_t lasting_ns) {
  WorldOptions options;
  options.seed = 11;
  options.safety_phase_ns = kSafetyNs;
  options.liveness_budget_ns = 120 * kSecond;
  auto world = std::make_unique<World>(options);
  world->add_lease_store();
  world->add_instance("instance-1");
  world->add_instance("instance-2", 2 * kSecond);
  world->workflows().add(runtime::Workflow{
      "order", {runtime::StepItem{"wait", [](runtime::ExecutionContext& ctx) {
                                    for (int i = 0; i < 25; ++i) ctx.env().sleep(kSecond);
                                  }}}});
  world->submit(runtime::LeaseKey{"tenant-1", "order-1"}, "order");
  Fault crash{FaultKind::kCrash, "instance-1"};
  crash.at_ns = 5 * kSecond;
  crash.duration_ns = lasting_ns;
  world->set_fault_plan(FaultPlan{{crash}});
  world->run();
  return world;
}

struct Restart {
  std::int64_t time_ns;
  std::string holder;
};

std::vector<Restart> restarts(const World& world) {
  std::vector<Restart> out;
  for (const HistoryEvent& e : world.history().events()) {
    if (e.world == WorldEventKind::kNodeRestarted) {
      out.push_back({e.time_ns, std::string(e.detail)});
    }
  }
  return out;
}

TEST(CrashRestart, ACrashWithALastingRestartsWhenItEnds) {
  const auto world = run_crashed(3 * kSecond);
  const std::vector<Restart> back = restarts(*world);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].time_ns, 8 * kSecond);
  EXPECT_EQ(back[0].holder, "instance-1#2");
}

TEST(CrashRestart, ACrashWithoutALastingRestartsInTheQuietPhase) {
  const auto world = run_crashed(0);
  const std::vector<Restart> back = restarts(*world);
  ASSERT_EQ(back.size(), 1u) << "the crashed instance never came back";
  EXPECT_EQ(back[0].time_ns, kSafetyNs) << "not before the heal, and at it";
  EXPECT_EQ(back[0].holder, "instance-1#2");
  // Back as a worker: the new incarnation asks the store for work in the quiet phase.
  bool asked = false;
  for (const HistoryEvent& e : world->history().events()) {
    if (e.world == WorldEventKind::kStoreCall && e.store && e.time_ns > kSafetyNs &&
        world->node_names().at(e.store->from) == "instance-1") {
      asked = true;
    }
  }
  EXPECT_TRUE(asked) << "the restarted instance never called the store";
}

}  // namespace
}  // namespace fencesim::sim::crash_restart_test
