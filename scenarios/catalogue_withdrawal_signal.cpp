// A withdrawal inside a pass runs in its step's frame "with its fence and signal" (ADR-0023,
// Consequences: "a withdrawal made inside a pass has its step's"; runtime/instance.h). Its fence
// is judged by many oracles, its signal by none until red team 29a: a withdrawal given a signal of
// its own, never aborted, passed every sweep. Here a long withdrawal watches its signal like a
// watchful step (scenarios/watchful_step.h: the workload's own "signal" records), while a
// client's cancel of the tree is recorded and learnt by the holder; the cancel oracle
// (cancel-aborts-steps) then finds a withdrawal that still sees its signal live.
#include <algorithm>

#include "runtime/errors.h"
#include "scenarios/builder.h"
#include "scenarios/watchful_step.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios {

using runtime::ExecutionContext;
using runtime::kMillisecond;
using runtime::kSecond;

namespace {

// Watches its signal for up to `watch` in chunks of one second, as watchful() does, but only in a
// step's frame: a withdrawal that found no running step has a signal nothing aborts (its frame
// was rebuilt, or it was refused), and judging it would accuse the runtime wrongly.
runtime::StepBody watching_withdrawal(sim::World& world, runtime::Nanoseconds watch) {
  return [&world, watch](ExecutionContext& ctx) {
    bool fenced = true;
    try {
      (void)ctx.fence().token();
    } catch (const runtime::ExecutionContextUnavailableError&) {
      fenced = false;
    }
    if (!fenced) return;
    world.mark(ctx, "withdrawal-watched-signal");
    for (runtime::Nanoseconds left = watch; left > 0;) {
      const runtime::Nanoseconds chunk = std::min(left, kSecond);
      ctx.env().sleep(chunk);
      left -= chunk;
      if (look_at_signal(world, ctx)) {
        world.mark(ctx, "withdrawal-signal-aborted");
        return;
      }
    }
  };
}

}  // namespace

static void register_catalogue_withdrawal_signal(ScenarioRegistry& registry) {
  ScenarioBuilder("withdrawal-watches-signal")
      .describe(
          "a withdrawal inside a pass watches its signal while the client's cancel of the tree is "
          "recorded and learnt by the holder: the withdrawal runs with its step's signal, which "
          "the cancel aborts")
      .safety_phase(60 * kSecond)
      .sink("payments")
      .instance("instance-1")
      .workflow([](sim::World& world, sim::Rng&) {
        return runtime::Workflow{"order",
                                 {work_step("long", 30 * kSecond),
                                  write_step(world, "charge", kSecond, "payments", "x")}};
      })
      .tree("tenant-1", "order-1", "order")
      .setup([](sim::World& world) {
        const runtime::LeaseKey tree{"tenant-1", "order-1"};
        sim::Rng draws = world.stream("withdrawal-signal");
        // The withdrawal starts inside "long" and watches past the moment the holder learns of
        // the cancel (its watcher reads the store once every renewal interval, 10 s).
        world.withdraw_at(draws.between(1'000, 4'000) * kMillisecond, "instance-1", tree, "long",
                          watching_withdrawal(world, 26 * kSecond));
        world.cancel_at(draws.between(5'000, 12'000) * kMillisecond, tree);
      })
      // The look after the cancel was seen is a mark of the history (properties/mark_rules.cpp):
      // it says cancel-aborts-steps had the withdrawal's looks to judge, not only that the body
      // saw its signal aborted.
      .marks({"withdrawal-watched-signal >= 95%", "withdrawal-signal-aborted >= 95%",
              "signal-looked-at-after-the-cancel-was-seen >= 95%", "tree-cancelled >= 95%"})
      .add_to(registry);
}

// The one line that makes this file's scenarios built in (scenarios/scenario.h).
const ScenarioRegistration kCatalogueWithdrawalSignalRegistration(
    register_catalogue_withdrawal_signal);

}  // namespace fencesim::scenarios
