// The lease store's wall clock leaps forward past a lease (an NTP step, a VM restored from a
// snapshot): outside the clock assumptions, the store expires the lease while its holder still
// believes it (confirmedUntil counted on the holder's own clock). The holder learns it only from
// its next renewal, which the store refuses (expired; stale once the other instance took the key
// over): a loss the refusal causes, reported after the refusal (loss-after-its-cause), never a
// loss of a lease the holder's clock says it still has without a refusal to say so. Until session
// 32 only the swarm (6 seeds in 100) refused a renewal its holder still believed, the one moment
// where red team 31a's bug 36 (the loss reported before its refusal) shows.
#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/errors.h"
#include "scenarios/builder.h"
#include "scenarios/fault_spec.h"
#include "scenarios/watchful_step.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios {

using runtime::ChildPlacement;
using runtime::EventKind;
using runtime::GroupItem;
using runtime::kSecond;

namespace {

// A step that writes one effect a second (tick-1, tick-2, ...) to `sink`, each with an
// idempotency key of its own: whoever holds the tree next writes the same ticks with its token,
// so the stale holder's next tick finds the sink's mark above its token.
runtime::StepItem ticking_step(sim::World& world, std::string name, int ticks, std::string sink) {
  std::vector<DeclaredEffect> effects;
  for (int i = 1; i <= ticks; ++i) effects.push_back({sink, fmt::format("tick-{}", i)});
  return declared_step(std::move(name), std::move(effects),
                       [&world, ticks, sink](runtime::ExecutionContext& ctx) {
                         for (int i = 1; i <= ticks; ++i) {
                           ctx.env().sleep(kSecond);
                           write_effect(world, ctx, sink, fmt::format("tick-{}", i), "tick");
                         }
                       });
}

// A step that looks at its signal once a second for `watch` and, once it is aborted, gives up
// with an error of its own, as code that maps an abort to its own error does: the runtime finds
// the refusal in the signal's reason, not in what the step threw (ADR-0023: found and checked
// before the signal's reason wherever the runtime decides). The mark is made where the error
// leaves the step, when the reason was a refusal: a body that returned instead, or threw the
// reason itself, reaches it no more (red team 42d-02: a mark made before the throw held its
// floor for a body that returned).
runtime::StepItem giving_up_step(sim::World& world, std::string name, runtime::Nanoseconds watch) {
  auto body = [&world, watch](runtime::ExecutionContext& ctx) {
    for (runtime::Nanoseconds left = watch; left > 0; left -= kSecond) {
      ctx.env().sleep(kSecond);
      if (look_at_signal(world, ctx)) {
        throw std::runtime_error("watch: gave up, its signal was aborted");
      }
    }
  };
  return {std::move(name), [&world, body](runtime::ExecutionContext& ctx) {
            std::exception_ptr own;
            try {
              body(ctx);
            } catch (const runtime::ExecutionError&) {
              throw;  // not an error of its own
            } catch (const std::exception&) {
              own = std::current_exception();
            }
            if (!own) return;
            // Outside the catch: the reason is read by rethrowing it (none if something else
            // than the abort ended the body).
            if (const std::exception_ptr reason = ctx.signal().reason()) {
              try {
                std::rethrow_exception(reason);
              } catch (const runtime::ExecutionFencedError&) {
                world.mark(ctx, "gave-up-after-a-refusal");
              } catch (const std::exception&) {
              }
            }
            std::rethrow_exception(own);
          }};
}

// The lease store's wall clock leaps 31 to 60 s forward right after holder 1's first renewal:
// past the lease that renewal gave, which the holder still believes.
FaultSpec leap_past_the_first_renewal() {
  return clock_step("lease-store")
      .after_at("instance-1", EventKind::kLeaseRenewed)
      .amount_between(31 * kSecond, 60 * kSecond);
}

}  // namespace

static void register_catalogue_store_clock(ScenarioRegistry& registry) {
  ScenarioBuilder("store-clock-leaps")
      .describe(
          "the lease store's wall clock leaps forward past the lease right after holder 1's "
          "first renewal: the store expires a lease its holder still believes, the next renewal "
          "is refused, and the holder loses the lease by that refusal, reported after it")
      .safety_phase(150 * kSecond)
      .sink("payments")
      .instance("instance-1")
      .instance("instance-2", 5 * kSecond)
      .workflow([](sim::World& world, sim::Rng&) {
        return runtime::Workflow{
            "order",
            {work_step("reserve", kSecond), work_step("assemble", 60 * kSecond),
             write_step(world, "charge", kSecond, "payments", "charge 42 EUR")}};
      })
      .tree("tenant-1", "order-1", "order")
      .fault(leap_past_the_first_renewal())
      // measured over seeds 1..400: late-renewal-refused 100%, takeover-mid-step 100%
      .marks({"late-renewal-refused >= 95%", "takeover-mid-step >= 90%"})
      .add_to(registry);

  // The same leap with nobody to take the key over: the store expires the lease and nobody takes
  // it, so holder 1's next renewal is refused as expired (not stale) while holder 1's clock says
  // its belief has twenty seconds left, and it is writing a tick a second. The refusal is the
  // loss (refusal-is-a-loss): a holder that reads "expired, nobody took it" as leave to go on
  // until its own belief runs out writes its next ticks under a token the store refused. Until
  // session 44 only the swarm refused a renewal as expired while it was believed (red team
  // 43b-22, 3 runs of 8,349). Holder 1 takes the tree again with the next token and finishes it.
  ScenarioBuilder("renewal-refused-as-expired")
      .describe(
          "the lease store's wall clock leaps past holder 1's lease with no other instance: "
          "holder 1's next renewal is refused as expired while it still believes the lease and "
          "writes a tick a second; it must lose the lease at that refusal")
      .safety_phase(100 * kSecond)
      .sink("payments")
      .instance("instance-1")
      .workflow([](sim::World& world, sim::Rng&) {
        return runtime::Workflow{"ticks", {ticking_step(world, "tick", 40, "payments")}};
      })
      .tree("tenant-1", "order-1", "ticks")
      .fault(leap_past_the_first_renewal())
      // measured over seeds 1..1000: late-renewal-refused 100%
      .marks({"late-renewal-refused >= 95%"})
      .add_to(registry);

  // The same leap, with the tree in two branches: one writes a tick a second, the other watches
  // its signal. The store expires holder 1's lease while holder 1 still believes it; instance-2
  // takes the tree over and writes its ticks, and holder 1's next tick is refused while its belief
  // lasts: the refusal is the first loss, and the signal's reason. The watching branch gives up
  // with its own error, which carries no refusal: its decision must read the signal's reason
  // (ADR-0023: the refusal is found before the reason wherever the runtime decides) and end it
  // fenced, not with its own error (stale-step-never-succeeds, classification). No other scenario
  // aborts a signal by a refusal first under a step that throws an error of its own (red team
  // 42b-11, which searched the failure only for the refusal, is equivalent here: the reason is
  // then the lease's loss itself, so an Aborted decision rethrows the same refusal with the same
  // code, and the loss already stopped the holder; a decision that ignores the reason is caught
  // at every seed).
  ScenarioBuilder("refusal-aborts-a-sibling")
      .describe(
          "the lease store's clock leaps past holder 1's lease; instance-2 takes over and writes, "
          "and holder 1's next write is refused while it still believes the lease: the refusal "
          "aborts the signal of a sibling branch, which gives up with an error of its own and "
          "still ends fenced")
      .safety_phase(150 * kSecond)
      .sink("payments")
      .instance("instance-1")
      .instance("instance-2", 5 * kSecond)
      .workflow([](sim::World& world, sim::Rng&) {
        return runtime::Workflow{"ticks", {ticking_step(world, "tick", 40, "payments")}};
      })
      .workflow([](sim::World& world, sim::Rng&) {
        return runtime::Workflow{"watch", {giving_up_step(world, "watch", 60 * kSecond)}};
      })
      .workflow([](sim::World&, sim::Rng&) {
        return runtime::Workflow{
            "order",
            {work_step("reserve", kSecond),
             GroupItem{"children",
                       {{"pay", ChildPlacement::kParentInstance, "ticks"},
                        {"watch", ChildPlacement::kParentInstance, "watch"}}}}};
      })
      .tree("tenant-1", "order-1", "order")
      .fault(leap_past_the_first_renewal())
      // measured over seeds 1..200: gave-up-after-a-refusal 100%, stale-write-refused 100%
      .marks({"gave-up-after-a-refusal >= 90%", "stale-write-refused >= 90%"})
      .add_to(registry);
}

// The one line that makes this file's scenarios built in (scenarios/scenario.h).
const ScenarioRegistration kCatalogueStoreClockRegistration(register_catalogue_store_clock);

}  // namespace fencesim::scenarios
