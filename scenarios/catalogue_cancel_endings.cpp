// The catalogue's stories about how a pass that meets a cancel ends when the plain way is closed
// (#360): the queue cannot be reached to finish the placement, the lease was lost while the pass
// was frozen with the cancel seen, or the cancel is first heard of in the answer to the tree's
// completion. Each is a moment the mixes meet once in hundreds or thousands of runs (runtime
// mutants redteam9-07, redteam10-05 and redteam11-04 were caught only there, at swarm seed 217,
// swarm seed 182 and nightly-mix seed 84); each story here makes it happen in every run.
#include "runtime/errors.h"
#include "scenarios/builder.h"
#include "scenarios/fault_spec.h"
#include "scenarios/order_workflow.h"
#include "scenarios/watchful_step.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios {

using runtime::EventKind;
using runtime::ExecutionContext;
using runtime::kMillisecond;
using runtime::kSecond;

namespace {

// A tree whose second step looks at its signal every second for a minute: the pass's cancel
// watcher (one read per renewal interval) is what learns a cancel recorded meanwhile.
runtime::Workflow watched_order(sim::World& world) {
  return runtime::Workflow{"order",
                           {work_step("prepare", kSecond),
                            watchful(world, work_step("ship", kSecond), 60 * kSecond),
                            write_step(world, "charge", kSecond, "payments", "charge")}};
}

void cancel_between(sim::World& world, std::int64_t low_ns, std::int64_t high_ns) {
  sim::Rng cancels = world.stream("cancels");
  world.cancel_at(cancels.between(low_ns, high_ns), runtime::LeaseKey{"tenant-1", "order-1"});
}

}  // namespace

static void register_catalogue_cancel_endings(ScenarioRegistry& registry) {
  // The lease store (which hosts the placement queue) goes down the moment the pass learns the
  // cancel, so the pass that decided the tree cancelled cannot finish its placement: it must give
  // its lease back and leave the tree to the next pass, which finds the cancel at its start and
  // ends the tree. A pass that kept its lease after that (redteam9-07) renews it once the store is
  // back, and nobody ever ends the tree.
  ScenarioBuilder("cancel-meets-a-queue-outage")
      .describe(
          "the lease store, which hosts the placement queue, goes down the moment the pass learns "
          "its tree's cancel: the pass cannot finish the placement, gives its lease back, and the "
          "next pass to take the tree finds the cancel and ends it")
      .safety_phase(60 * kSecond)
      .sink("payments")
      .checkpoint_store()
      .instance("instance-1")
      .workflow([](sim::World& world, sim::Rng&) { return watched_order(world); })
      .tree("tenant-1", "order-1", "order")
      .fault(store_down("lease-store")
                 .after_at("instance-1", EventKind::kCancelSeen)
                 .lasting_between(3 * kSecond, 15 * kSecond))
      .setup([](sim::World& world) { cancel_between(world, 15 * kSecond, 40 * kSecond); })
      .marks({"cancelled-pass-abandoned >= 95%", "tree-cancelled >= 95%"})
      .add_to(registry);

  // Holder 1's watcher learns the cancel and the holder is frozen at once, past its lease, before
  // its watchful step looks at the aborted signal; instance-2 takes the tree over and ends it
  // cancelled. At the resume the step stops with the cancel, but its holder's lease is lost: the
  // stale pass must end with the loss, not end the tree cancelled (a cancel does not hide a lost
  // lease; redteam10-05 decided it again from the step's error).
  ScenarioBuilder("cancel-seen-before-a-freeze")
      .describe(
          "holder 1 learns its tree's cancel and is frozen at once, past its lease, before its "
          "step looks at the aborted signal; instance-2 takes over and ends the tree: at the "
          "resume holder 1's pass must end with its lost lease, not with the cancel")
      .safety_phase(120 * kSecond)
      .sink("payments")
      .instance("instance-1")
      .instance("instance-2", 2 * kSecond)
      .workflow([](sim::World& world, sim::Rng&) { return watched_order(world); })
      .tree("tenant-1", "order-1", "order")
      .fault(stall("instance-1")
                 .after(EventKind::kCancelSeen)
                 .lasting_between(35 * kSecond, 60 * kSecond))
      .setup([](sim::World& world) { cancel_between(world, 15 * kSecond, 40 * kSecond); })
      .marks({"cancel-seen-by-a-lost-lease >= 95%", "tree-cancelled >= 95%",
              "takeover-mid-step >= 95%"})
      .add_to(registry);

  // The checkpoint service turns slow the moment the last step's checkpoint leaves, so the tree's
  // completion reaches it seconds later; the client's cancel, recorded in between, is what the
  // completion is refused for. The pass has not seen it (its watcher reads once per renewal
  // interval, and this pass is younger than one), so the refusal is how it learns the cancel: it
  // must end the tree cancelled, not as a lost lease it still holds (redteam11-04).
  ScenarioBuilder("completion-answered-cancelled")
      .describe(
          "the client's cancel is recorded while the tree's completion is slowed on its way to "
          "the checkpoint service, after the last step's checkpoint: the completion is refused "
          "as cancelled, and the pass, which had not seen the cancel, ends the tree cancelled")
      .safety_phase(30 * kSecond)
      .sink("payments")
      .checkpoint_store()
      .instance("instance-1")
      .workflow([](sim::World& world, sim::Rng&) { return quick_order(world); })
      .tree("tenant-1", "order-1", "order")
      .fault(store_slow("checkpoint-store")
                 .after_at("instance-1", EventKind::kCheckpointSent, 2)
                 .lasting(6 * kSecond)
                 .amount(800 * kMillisecond))
      // The last step's checkpoint leaves about 2.2 s in (T); it and its reply are each 0.8 s late
      // (a round trip inside the 2 s RPC timeout), so the completion leaves at T + 1.6 s and
      // arrives at T + 2.4 s. A cancel sent in [2.4 s, 3.5 s] arrives (0.8 s late itself) after
      // the step's checkpoint and before the completion.
      .setup([](sim::World& world) {
        cancel_between(world, 2400 * kMillisecond, 3500 * kMillisecond);
      })
      .marks({"completion-answered-cancelled >= 95%", "tree-cancelled >= 95%"})
      .add_to(registry);

  // A client cancels a tree it has not placed yet (the cancel reaches the store first: the order
  // is late, or placed elsewhere), then asks an instance to withdraw a step of it. The store holds
  // the cancel and the queue no placement: nothing says the tree ended, so the withdrawal must be
  // refused, not run unfenced as after the tree's end (runtime mutant
  // redteam45c-06-withdrawal-unplaced-cancel-ended took an unknown placement for a finished one;
  // the main job met it in 16 runs of 9,200). The tree is placed later and runs to its end.
  ScenarioBuilder("withdrawal-before-the-cancelled-tree-is-placed")
      .describe(
          "a client's cancel of a tree reaches the store before the tree is placed, and a "
          "withdrawal of one of its steps comes in between: nothing says the tree ended, so the "
          "withdrawal is refused, not run without a fence")
      .safety_phase(30 * kSecond)
      .sink("payments")
      .instance("instance-1")
      .workflow([](sim::World& world, sim::Rng&) { return watched_order(world); })
      .tree("tenant-1", "order-1", "order", 8 * kSecond)
      .setup([](sim::World& world) {
        sim::Rng draws = world.stream("withdrawals");
        world.cancel_at(draws.between(200, 2'000) * kMillisecond,
                        runtime::LeaseKey{"tenant-1", "order-1"});
        world.withdraw_at(draws.between(3'000, 7'000) * kMillisecond, "instance-1",
                          runtime::LeaseKey{"tenant-1", "order-1"}, "charge",
                          [&world](ExecutionContext& ctx) {
                            record_withdrawal_frame(world, ctx, "charge");
                          });
      })
      .marks({"withdrawal-refused-while-live >= 95%", "tree-cancelled >= 95%"})
      .add_to(registry);
}

// The one line that makes this file's scenarios built in (scenarios/scenario.h).
const ScenarioRegistration kCatalogueCancelEndingsRegistration(register_catalogue_cancel_endings);

}  // namespace fencesim::scenarios
