// The steps' helpers the swarm and the catalogue share, in small worlds made here: a fence use that
// fails with anything but the refusal the ADR gives is a misuse not refused (never counted as
// refused), and a call to a system that cannot check tokens overlaps a later holder only while the
// system works on it (from the moment it was sent, for its duration), however long its caller is
// stopped before it reads the answer.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "properties/run.h"
#include "scenarios/builder.h"
#include "scenarios/swarm_workload.h"
#include "scenarios/unchecked_system.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios::step_helpers_test {
namespace {

using runtime::EventKind;
using runtime::ExecutionContext;
using runtime::kMillisecond;
using runtime::kSecond;

// A use that fails with another error (here on the step's first run only, so that the tree still
// completes) is not a refusal: the error leaves the step, which fails, and no refusal is marked.
TEST(StepHelpers, OnlyTheUnavailableErrorCountsAsAFenceUseRefused) {
  ScenarioRegistry registry;
  auto runs = std::make_shared<int>(0);
  ScenarioBuilder("fence-uses")
      .safety_phase(10 * kSecond)
      .instance("instance-1")
      .workflow([runs](sim::World& world, sim::Rng&) {
        return runtime::Workflow{
            "uses",
            {runtime::StepItem{"use", [&world, runs](ExecutionContext& ctx) {
               expect_unavailable(
                   world, ctx, [&] { (void)ctx.parent().fence().token(); },
                   "ancestor-fence-refused");
               if (++*runs > 1) return;
               expect_unavailable(
                   world, ctx, [] { throw std::runtime_error("not the ADR's refusal"); },
                   "wrong-error-refused");
             }}}};
      })
      .tree("tenant-1", "order-1", "uses")
      .add_to(registry);
  std::vector<std::string> outcomes;
  const properties::RunReport report = properties::run_scenario(
      registry, properties::RunRequest{"fence-uses", 1},
      [&](const sim::World& world, const properties::RunReport&) {
        for (const sim::HistoryEvent& e : world.history().events()) {
          if (e.world == sim::WorldEventKind::kRuntime &&
              e.runtime.kind == EventKind::kStepEnded) {
            outcomes.push_back(e.runtime.detail.str());
          }
        }
      });
  EXPECT_FALSE(report.marks.contains("wrong-error-refused"));
  EXPECT_EQ(report.marks.at("ancestor-fence-refused"), 2u);
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_NE(outcomes[0], "ok");
  EXPECT_EQ(outcomes[1], "ok");
}

// instance-1 sends its 2 s call and is stopped 500 ms into it, for 60 s; instance-2 takes the tree
// over at the lease's expiry (about 31 s in) and holds it through a long step. The system finished
// the stale call 1.5 s after the stop began: no overlap, whenever its caller wakes to read it.
TEST(StepHelpers, AnUncheckedCallOverlapsOnlyWhileTheSystemWorksOnIt) {
  ScenarioRegistry registry;
  ScenarioBuilder("stopped-caller")
      .safety_phase(150 * kSecond)
      .sink("payments")
      .instance("instance-1")
      .instance("instance-2", 2 * kSecond)
      .workflow([](sim::World& world, sim::Rng&) {
        auto mailer = std::make_shared<UncheckedSystem>(world);
        return runtime::Workflow{
            "order",
            {runtime::StepItem{"notify", [mailer](ExecutionContext& ctx) {
               (void)mailer->call(ctx, 2 * kSecond);
             }},
             work_step("pack", 90 * kSecond)}};
      })
      .tree("tenant-1", "order-1", "order")
      .fault(stop("instance-1")
                 .after(EventKind::kStepStarted, 1, 500 * kMillisecond)
                 .lasting(60 * kSecond))
      .add_to(registry);
  const properties::RunReport report =
      properties::run_scenario(registry, properties::RunRequest{"stopped-caller", 1});
  EXPECT_TRUE(report.marks.contains("takeover-mid-step"));
  EXPECT_EQ(report.figures.at("unchecked-calls"), 2);  // the stale holder's and the next one's
  EXPECT_FALSE(report.figures.contains("unchecked-overlap-calls"));
  EXPECT_FALSE(report.marks.contains("unchecked-call-overlapped"));
}

}  // namespace
}  // namespace fencesim::scenarios::step_helpers_test
