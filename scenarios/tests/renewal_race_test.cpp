// A racing step (scenarios/renewal_race.h) runs its body `after` its lease's renewal left its node,
// by the node's own time: 0 runs it at the renewal's instant, 7 ms seven milliseconds later. The
// spread is what puts the body's acts at every point of the renewal's round trip (before its
// request reaches the store, between the store's commit and the reply, after it); a body that
// always ran at the renewal's instant would leave the later points to chance again.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>

#include "properties/run.h"
#include "runtime/observer.h"
#include "scenarios/builder.h"
#include "scenarios/renewal_race.h"

namespace fencesim::scenarios::renewal_race_test {
namespace {

using runtime::ExecutionContext;
using runtime::kMillisecond;
using runtime::kSecond;

struct Race {
  std::optional<std::int64_t> renewal_sent_ns;  // the first renewal of the tree's lease
  std::optional<std::int64_t> body_ran_ns;
  bool marked = false;
};

// One instance, one step that races its lease's first renewal (near 10 s) by `after`.
Race race(runtime::Nanoseconds after) {
  ScenarioRegistry registry;
  ScenarioBuilder("renewal-race")
      .safety_phase(20 * kSecond)
      .instance("instance-1")
      .workflow([after](sim::World& world, sim::Rng&) {
        return runtime::Workflow{
            "order",
            {racing_renewal(world,
                            runtime::StepItem{"race",
                                              [&world](ExecutionContext& ctx) {
                                                world.mark(ctx, "body-ran");
                                              }},
                            after)}};
      })
      .tree("tenant-1", "order-1", "order")
      .add_to(registry);
  Race seen;
  properties::run_scenario(
      registry, properties::RunRequest{"renewal-race", 1},
      [&](const sim::World& world, const properties::RunReport&) {
        for (const sim::HistoryEvent& e : world.history().events()) {
          if (e.world == sim::WorldEventKind::kRuntime &&
              e.runtime.kind == runtime::EventKind::kRenewSent && !seen.renewal_sent_ns) {
            seen.renewal_sent_ns = e.time_ns;
          }
          if (e.world == sim::WorldEventKind::kMark && e.detail == "body-ran") {
            seen.body_ran_ns = e.time_ns;
          }
          if (e.world == sim::WorldEventKind::kMark && e.detail == "step-raced-renewal") {
            seen.marked = true;
          }
        }
      });
  return seen;
}

TEST(RenewalRace, TheBodyRunsAtTheRenewalsInstant) {
  const Race seen = race(0);
  ASSERT_TRUE(seen.renewal_sent_ns && seen.body_ran_ns);
  EXPECT_TRUE(seen.marked);
  EXPECT_EQ(*seen.body_ran_ns, *seen.renewal_sent_ns);
}

TEST(RenewalRace, TheBodyRunsItsDelayAfterTheRenewalLeft) {
  const Race seen = race(7 * kMillisecond);
  ASSERT_TRUE(seen.renewal_sent_ns && seen.body_ran_ns);
  EXPECT_TRUE(seen.marked);
  EXPECT_EQ(*seen.body_ran_ns - *seen.renewal_sent_ns, 7 * kMillisecond);
}

// The delays a scenario's racing steps draw cover the round trip: at the instant, within the
// first milliseconds, and up to 40 ms later, never more (red team 36a-37 drew some in seconds:
// the body then runs long after the renewal came back, yet the step is still marked raced).
TEST(RenewalRace, TheDrawnDelaysCoverTheRoundTripAndNoMore) {
  sim::Rng rng(36);
  int none = 0, early = 0, late = 0;
  for (int i = 0; i < 1000; ++i) {
    const runtime::Nanoseconds after = draw_race_delay(rng);
    ASSERT_GE(after, 0);
    ASSERT_LE(after, 40 * kMillisecond);
    none += after == 0;
    early += after > 0 && after <= 5 * kMillisecond;
    late += after > 5 * kMillisecond;
  }
  EXPECT_GE(none, 300);
  EXPECT_GE(early, 200);
  EXPECT_GE(late, 200);
}

}  // namespace
}  // namespace fencesim::scenarios::renewal_race_test
