// What a scenario written with the builder (scenarios/builder.h) puts in its world, read from the
// world it builds (no run): its trees arrive at the times it gives them, its instances start when
// it says. A story whose second tree arrives 2 s in (anyinstance-independent-epochs: the root
// whose epoch a stall moves on meets a tree already running) is another story at 0 s.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "properties/run.h"
#include "runtime/env.h"
#include "scenarios/builder.h"
#include "scenarios/scenario.h"
#include "scenarios/tests/built_world.h"
#include "scenarios/workload.h"
#include "sim/world.h"

namespace fencesim::scenarios::builder_test {
namespace {

using runtime::kSecond;

TEST(Builder, TreesArriveAndInstancesStartWhenTheScenarioSays) {
  static const ScenarioRegistry registry = builtin_scenarios();
  std::vector<std::pair<std::string, std::int64_t>> arrivals;
  {
    // One world at a time: a thread holds one live scheduler.
    const auto epochs = testing::built_world(*registry.find("anyinstance-independent-epochs"), 1);
    for (const sim::World::Submission& s : epochs->submissions()) {
      arrivals.emplace_back(s.key.lease_execution_id, s.at_ns);
    }
  }
  EXPECT_EQ(arrivals, (std::vector<std::pair<std::string, std::int64_t>>{
                          {"order-1", 0}, {"order-2", 2 * kSecond}}));
  const auto refusal = testing::built_world(*registry.find("aggregate-refusal-after-expiry"), 1);
  std::vector<std::pair<std::string, std::int64_t>> starts;
  for (const auto& [node, start_ns] : refusal->instance_starts()) {
    starts.emplace_back(refusal->node_names()[node], start_ns);
  }
  EXPECT_EQ(starts, (std::vector<std::pair<std::string, std::int64_t>>{
                        {"instance-1", 0}, {"instance-2", 5 * kSecond}}));
}

// A run stuck on an AnyInstance child names the child among the trees it was stuck on, with its
// own state: the child's step waits for a wake-up nobody sends, and the root waits for the child.
// Red team 33a: the world listed only the submitted roots, so the child, whose step is the cause
// (the root's wait is the symptom), was never named in the run's detail or its failure signature.
// A built scenario's faults are drawn from a stream of their own, not the workload's: otherwise a
// fault's time and length repeat the workload's step-duration draws, seed after seed (red team
// 35b-14: the plan drawn from a fresh copy of the workload stream, every claim still met).
TEST(Builder, TheFaultsAreDrawnIndependentlyOfTheWorkload) {
  ScenarioRegistry registry;
  std::uint64_t workload_draw = 0;
  std::uint64_t fault_draw = 0;
  ScenarioBuilder("two-streams")
      .describe("test only: one draw from each of the builder's streams")
      .instances(1)
      .workflow([&](sim::World&, sim::Rng& workload) {
        workload_draw = workload.below(1ULL << 40);
        return runtime::Workflow{"root", {work_step("reserve", kSecond)}};
      })
      .faults([&](sim::World&, sim::Rng& faults) {
        fault_draw = faults.below(1ULL << 40);
        return sim::FaultPlan{};
      })
      .tree("tenant-1", "order-1", "root")
      .add_to(registry);
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    testing::built_world(*registry.find("two-streams"), seed);
    EXPECT_NE(workload_draw, fault_draw) << "seed " << seed;
  }
}

TEST(Builder, ALivenessFailureNamesAStuckAnyInstanceChild) {
  ScenarioRegistry registry;
  ScenarioBuilder("stuck-child")
      .describe("test only: an AnyInstance child whose step waits for a wake-up nobody sends")
      .safety_phase(30 * kSecond)
      .instances(2)
      .workflow([](sim::World&, sim::Rng&) {
        runtime::StepBody wait = [](runtime::ExecutionContext& ctx) {
          const std::unique_ptr<runtime::Notification> never = ctx.env().make_notification();
          never->wait("a wake-up nobody sends");
        };
        return runtime::Workflow{"kid", {runtime::StepItem{"wait", wait}}};
      })
      .workflow([](sim::World&, sim::Rng&) {
        return runtime::Workflow{
            "root",
            {work_step("reserve", kSecond),
             runtime::GroupItem{"kids", {{"kid", runtime::ChildPlacement::kAnyInstance, "kid"}}}}};
      })
      .tree("tenant-1", "order-1", "root")
      .add_to(registry);
  const properties::RunReport report =
      properties::run_scenario(registry, properties::RunRequest{"stuck-child", 1});
  ASSERT_EQ(report.status, properties::RunStatus::kLiveness) << report.detail;
  // The root (its lease given back while it waits for the child) and the child, each on a line.
  EXPECT_NE(report.detail.find("\n  tree tenant-1/order-1: "), std::string::npos) << report.detail;
  EXPECT_NE(report.detail.find("\n  tree tenant-1/@child:order-1:kids%2Fkid: "), std::string::npos)
      << report.detail;
}

// A tree whose pass gave it up and whose next pass hangs has passed through twice since the
// heal: its detail says its passes repeat and how they ended, the same words as for a tree given
// up forever, never "one pass began" (red team 33a: a repeat counted only from three passes, and
// two passes read as one).
TEST(Builder, TwoPassesSinceTheHealAreSaidToRepeat) {
  ScenarioRegistry registry;
  ScenarioBuilder("fails-then-hangs")
      .describe("test only: a step that fails its first pass and hangs in its second")
      .safety_phase(30 * kSecond)
      .instance("instance-1")
      .workflow([](sim::World&, sim::Rng&) {
        auto passes = std::make_shared<int>(0);
        runtime::StepBody charge = [passes](runtime::ExecutionContext& ctx) {
          if ((*passes)++ == 0) throw std::runtime_error("the first pass fails");
          const std::unique_ptr<runtime::Notification> never = ctx.env().make_notification();
          never->wait("a wake-up nobody sends");
        };
        return runtime::Workflow{"order", {runtime::StepItem{"charge", charge}}};
      })
      .tree("tenant-1", "order-1", "order", 31 * kSecond)  // after the heal
      .add_to(registry);
  const properties::RunReport report =
      properties::run_scenario(registry, properties::RunRequest{"fails-then-hangs", 1});
  ASSERT_EQ(report.status, properties::RunStatus::kLiveness) << report.detail;
  EXPECT_NE(report.detail.find("tree tenant-1/order-1: "), std::string::npos) << report.detail;
  EXPECT_NE(report.detail.find(", passes repeat since the heal, given up: "), std::string::npos)
      << report.detail;
}

// A key whose epochs are spent owes no completion, but a pass of it still open must end before
// the run may end well: here the pass's step never returns (it ignores its signal), and its lease,
// the key's last epoch, expires while its instance is stalled. The key is spent and its lease over,
// yet the pass is still open: the run must end as a liveness failure, not as a run whose every
// tree ended (a watcher that skipped the spent key would stop the run and pass it; the runtime's
// own hang of that kind, a pass left waiting for a retake that cannot come, would pass too).
TEST(Builder, AnOpenPassOfASpentKeyIsWorkNotDone) {
  ScenarioRegistry registry;
  ScenarioBuilder("spent-and-hung")
      .describe("test only: a step that never returns, on its key's last epoch, lease expired")
      .safety_phase(60 * kSecond)
      .options([](sim::WorldOptions& options) { options.liveness_budget_ns = 30 * kSecond; })
      .instance("instance-1")
      .setup([](sim::World& world) {
        runtime::Lease row;
        row.key = runtime::LeaseKey{"tenant-1", "order-last"};
        row.holder = "instance-of-an-earlier-deployment";
        row.token = sim::kLastSafeToken - 1;
        row.released = true;
        world.inherit_lease(row);
      })
      .workflow([](sim::World&, sim::Rng&) {
        runtime::StepBody hang = [](runtime::ExecutionContext& ctx) {
          const std::unique_ptr<runtime::Notification> never = ctx.env().make_notification();
          never->wait("a wake-up nobody sends");
        };
        return runtime::Workflow{"root", {runtime::StepItem{"hang", hang}}};
      })
      .faults([](sim::World&, sim::Rng&) {
        sim::Fault stall{sim::FaultKind::kStall, "instance-1"};
        stall.at_ns = 5 * kSecond;
        stall.duration_ns = 40 * kSecond;  // past the lease's 30 s
        return sim::FaultPlan{{stall}};
      })
      .tree("tenant-1", "order-last", "root")
      .add_to(registry);
  const properties::RunReport report =
      properties::run_scenario(registry, properties::RunRequest{"spent-and-hung", 1});
  EXPECT_EQ(report.status, properties::RunStatus::kLiveness) << report.detail;
  EXPECT_NE(report.detail.find("tree tenant-1/order-last: "), std::string::npos) << report.detail;
  // Its lease ran out at the store while the instance was stalled: the term says so.
  EXPECT_NE(report.detail.find(", lease expired, last lease-lost at instance"),
            std::string::npos)
      << report.detail;
}

}  // namespace
}  // namespace fencesim::scenarios::builder_test
