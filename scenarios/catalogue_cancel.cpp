// The catalogue's story about cancellation (#360): a client cancels a tree while its step
// confirms the lease again and again, each confirm guarding a call that cannot check tokens. The
// cancel's recording lands while a confirm is in flight, on either side of that confirm's cancel
// reads: a confirm that began after the recording must throw ExecutionCancelledError, the step
// must end cancelled, no step of the tree may start after, and the tree must never complete.
// And a cancel learnt after the pass took its lease back from a remote-children wait: the steps it
// must abort run under the retaken lease, not the one the wait gave back.
#include <stdexcept>

#include "runtime/errors.h"
#include "scenarios/builder.h"
#include "scenarios/fault_spec.h"
#include "scenarios/watchful_step.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios {

using runtime::ChildPlacement;
using runtime::ExecutionContext;
using runtime::GroupItem;
using runtime::kMillisecond;
using runtime::kSecond;

namespace {

// Confirms `count` times with `gap` between the confirms: a call that cannot check tokens would
// follow each (not modelled: the confirm's verdict is what is judged).
runtime::StepItem confirm_loop_step(sim::World& world, std::string name, int count,
                                    runtime::Nanoseconds gap) {
  return runtime::StepItem{std::move(name), [&world, count, gap](ExecutionContext& ctx) {
                             for (int call = 0; call < count; ++call) {
                               try {
                                 (void)confirm_now(world, ctx);
                               } catch (const runtime::ExecutionCancelledError&) {
                                 world.mark(ctx, "confirm-refused-by-cancel");
                                 throw;
                               }
                               ctx.env().sleep(gap);
                             }
                           }};
}

}  // namespace

static void register_catalogue_cancel(ScenarioRegistry& registry) {
  ScenarioBuilder("cancel-races-confirm")
      .describe(
          "a client cancels a tree while its step confirms its lease before each call that "
          "cannot check tokens: the cancel is recorded while a confirm is in flight; no confirm "
          "begun after the recording returns, and the tree ends cancelled, never completed")
      .safety_phase(60 * kSecond)
      .sink("payments")
      .instance("instance-1")
      .instance("instance-2", 2 * kSecond)
      .workflow([](sim::World& world, sim::Rng&) {
        return runtime::Workflow{
            "order",
            {work_step("reserve", kSecond),
             confirm_loop_step(world, "notify", 60, 20 * kMillisecond), work_step("pack", kSecond),
             write_step(world, "charge", kSecond, "payments", "charge")}};
      })
      .tree("tenant-1", "order-1", "order")
      .tree("tenant-1", "order-2", "order")  // not cancelled: it completes beside the other
      .setup([](sim::World& world) {
        // While order-1's notify step confirms (it starts about a second in and confirms for a
        // few seconds): the moment is drawn per seed, so the recording falls before, inside and
        // after the confirms' reads across seeds.
        sim::Rng cancels = world.stream("cancels");
        world.cancel_at(cancels.between(1200 * kMillisecond, 4 * kSecond),
                        runtime::LeaseKey{"tenant-1", "order-1"});
      })
      // measured over seeds 1..1000: cancel-during-confirm 75.4%, confirm-refused-by-cancel 100%,
      // tree-cancelled 100%
      .marks({"cancel-during-confirm >= 20%", "confirm-refused-by-cancel >= 95%",
              "tree-cancelled >= 95%"})
      .add_to(registry);

  // One instance holds the root, yields its lease while it waits for its AnyInstance child (which
  // the same instance runs: nobody else can take the root meanwhile), takes it back at a new
  // token, and runs a long step that looks at its signal every second. The client's cancel is
  // recorded while that step runs: the pass learns it and must abort the signal of the step under
  // the lease it holds now. Red team 41c-07: the cancel's watcher kept the lease the wait had
  // given back, so the step's own signal stayed live, and one nightly-mix run in about 6,650
  // showed it.
  ScenarioBuilder("cancel-after-a-retake")
      .describe(
          "a client cancels a tree while a step runs under the lease its pass took back after a "
          "remote-children wait yielded it: the cancel aborts that step's signal, and the tree "
          "ends cancelled")
      // No faults: the story is quiet from 5 s on, so that cancel-seen-in-time judges how soon
      // the pass learns of the cancel (a pass without its cancel watcher learns it only at the
      // next step start, after ship's 45 s: red team 41c-24).
      .safety_phase(5 * kSecond)
      .sink("payments")
      .instance("instance-1")
      .workflow([](sim::World&, sim::Rng&) {
        return runtime::Workflow{"invoice", {work_step("bill", 8 * kSecond)}};
      })
      .workflow([](sim::World& world, sim::Rng&) {
        return runtime::Workflow{
            "order",
            {work_step("prepare", kSecond),
             GroupItem{"invoices", {{"invoice", ChildPlacement::kAnyInstance, "invoice"}}},
             watchful(world, work_step("ship", kSecond), 45 * kSecond),
             write_step(world, "charge", kSecond, "payments", "charge")}};
      })
      .tree("tenant-1", "order-1", "order")
      .setup([](sim::World& world) {
        // While ship runs under the retaken lease (it starts about 10 s in and looks for 45 s):
        // drawn per seed.
        sim::Rng cancels = world.stream("cancels");
        world.cancel_at(cancels.between(18 * kSecond, 40 * kSecond),
                        runtime::LeaseKey{"tenant-1", "order-1"});
      })
      .marks({"lease-yielded >= 95%", "signal-looked-at-after-the-cancel-was-seen >= 95%",
              "tree-cancelled >= 95%"})
      .add_to(registry);

  // The root yields its lease for a long AnyInstance child (the same instance runs it), and the
  // client's cancel is recorded while the lease is yielded: the pass's watcher goes on reading
  // through the yield and learns the cancel within one interval, which ends the wait and the tree
  // (a cancel seen during the remote-children wait ends the tree; #360). A watcher that stopped
  // once the lease was not held (runtime mutant redteam11-03) learnt it only when the child ended,
  // and only nightly-mix seed 28 of the mixes' first 600 showed it.
  ScenarioBuilder("cancel-during-a-yielded-wait")
      .describe(
          "a client cancels a tree while its root's lease is yielded for a long remote child: the "
          "pass's cancel watcher reads through the yield, learns the cancel within one interval "
          "and ends the wait and the tree cancelled")
      .safety_phase(5 * kSecond)
      .sink("payments")
      .instance("instance-1")
      .workflow([](sim::World&, sim::Rng&) {
        return runtime::Workflow{"invoice", {work_step("bill", 60 * kSecond)}};
      })
      .workflow([](sim::World& world, sim::Rng&) {
        return runtime::Workflow{
            "order",
            {work_step("prepare", kSecond),
             GroupItem{"invoices", {{"invoice", ChildPlacement::kAnyInstance, "invoice"}}},
             write_step(world, "charge", kSecond, "payments", "charge")}};
      })
      .tree("tenant-1", "order-1", "order")
      .setup([](sim::World& world) {
        // While the root's lease is yielded (from about 1 s until the child ends, past 60 s).
        sim::Rng cancels = world.stream("cancels");
        world.cancel_at(cancels.between(10 * kSecond, 40 * kSecond),
                        runtime::LeaseKey{"tenant-1", "order-1"});
      })
      .marks({"lease-yielded >= 95%", "cancel-seen >= 95%", "tree-cancelled >= 95%"})
      .add_to(registry);

  // A group runs a ParentInstance branch beside its wait for an AnyInstance child. The branch's
  // step fails with an error of its own about 4 s in, before anything knows of a cancel; the wait
  // goes on (it yields the lease once the branch is over); the client's cancel is recorded after
  // the branch failed, and the pass's watcher learns it and ends the wait. The group's failure is
  // both the branch's error and the cancel, and the pass must end the tree cancelled, not with the
  // branch's error. (Runtime mutant redteam12-06, a join that drops the wait's failure when a
  // branch failed, passes here: the cancel also aborted the pass's signal, and the decision finds
  // it there. The mixes catch it when the branch's error is a lease loss.)
  ScenarioBuilder("cancel-while-a-branch-fails")
      .describe(
          "a group's branch fails with an error of its own beside its wait for a remote child; a "
          "client's cancel, recorded after, ends the wait: the group fails with both, and the pass "
          "ends the tree cancelled")
      .safety_phase(5 * kSecond)
      .sink("payments")
      .instance("instance-1")
      .workflow([](sim::World&, sim::Rng&) {
        return runtime::Workflow{"invoice", {work_step("bill", 60 * kSecond)}};
      })
      .workflow([](sim::World&, sim::Rng&) {
        return runtime::Workflow{
            "audit",
            {runtime::StepItem{"check", [](ExecutionContext& ctx) {
                                 ctx.env().sleep(3 * kSecond);
                                 throw std::runtime_error("audit: the ledger does not balance");
                               }}}};
      })
      .workflow([](sim::World& world, sim::Rng&) {
        return runtime::Workflow{
            "order",
            {work_step("prepare", kSecond),
             GroupItem{"work",
                       {{"audit", ChildPlacement::kParentInstance, "audit"},
                        {"invoice", ChildPlacement::kAnyInstance, "invoice"}}},
             write_step(world, "charge", kSecond, "payments", "charge")}};
      })
      .tree("tenant-1", "order-1", "order")
      .setup([](sim::World& world) {
        // After the audit branch failed (about 4 s in), while the wait goes on (until the child
        // ends, past 60 s).
        sim::Rng cancels = world.stream("cancels");
        world.cancel_at(cancels.between(5 * kSecond, 30 * kSecond),
                        runtime::LeaseKey{"tenant-1", "order-1"});
      })
      .marks({"cancel-seen >= 95%", "tree-cancelled >= 95%"})
      .add_to(registry);

  // The store is down when the pass's cancel watcher first reads it (about 10 s in, one renewal
  // interval after the pass began): that read fails, and the watcher must read again at the next
  // interval. The client's cancel is recorded in the quiet phase while a long step looks at its
  // signal and confirms nothing, so only the watcher can learn it in time (cancel-seen-in-time).
  // A watcher that gave up at its first failed read (runtime mutants
  // redteam16-05-cancel-watcher-quits-on-outage and redteam25-18-watcher-dies-on-outage, and red
  // team 42b-26 again) was caught by one swarm run in about 5,000, and a 60 s main job missed it.
  ScenarioBuilder("cancel-after-a-store-outage")
      .describe(
          "the lease store is down when the pass's cancel watcher first reads it; the client's "
          "cancel is recorded later, while a long step only looks at its signal: the watcher reads "
          "again at its next interval and the pass learns the cancel in time")
      .safety_phase(16 * kSecond)
      .sink("payments")
      .instance("instance-1")
      .workflow([](sim::World& world, sim::Rng&) {
        return runtime::Workflow{
            "order",
            {work_step("prepare", kSecond),
             watchful(world, work_step("ship", kSecond), 60 * kSecond),
             write_step(world, "charge", kSecond, "payments", "charge")}};
      })
      .tree("tenant-1", "order-1", "order")
      .fault(store_down("lease-store").at_between(7 * kSecond, 9 * kSecond).lasting(5 * kSecond))
      .setup([](sim::World& world) {
        // In the quiet phase, while ship looks at its signal (from about 1 s to 61 s).
        sim::Rng cancels = world.stream("cancels");
        world.cancel_at(cancels.between(20 * kSecond, 40 * kSecond),
                        runtime::LeaseKey{"tenant-1", "order-1"});
      })
      .marks({"signal-looked-at-after-the-cancel-was-seen >= 90%", "tree-cancelled >= 95%"})
      .add_to(registry);
}

// The one line that makes this file's scenarios built in (scenarios/scenario.h).
const ScenarioRegistration kCatalogueCancelRegistration(register_catalogue_cancel);

}  // namespace fencesim::scenarios
