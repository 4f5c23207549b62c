#pragma once
// Step bodies that go on just as their lease's renewal leaves. A renewal is in flight for one round
// trip (2 to 40 ms here) of every ten seconds, so a body whose first act (a confirm, a write, a
// cancel read) falls there by its own timing is one in hundreds, and one that also meets a fault
// there is one in tens of thousands: the runtime's code for "something else of mine is in flight
// on this lease" (a confirm that sees the timer's renewal granted, a write whose reply races the
// renewal's) runs in no night. These bodies wait for the moment (World::await_moment) and go on 0
// to 40 ms after it, as production's millions of steps do by chance; the step's own start (its
// cancel read and held check) came before the wait, so it is not in the window, but the body's
// acts and the step's checkpoint are.
#include "runtime/types.h"
#include "runtime/workflow.h"
#include "sim/random.h"
#include "sim/world.h"

namespace fencesim::scenarios {

// `step` whose body first waits for the next renewal of its lease to leave its node (at most one
// renew interval plus two RPC timeouts and a second: a renewal timed out meanwhile, or the node
// paused, or the lease gone, and the body goes on without the race), then `after` more of its
// node's time, then runs as it was; marks step-raced-renewal when the renewal came. A declared
// step stays declared (scenarios/workload.h).
runtime::StepItem racing_renewal(sim::World& world, runtime::StepItem step,
                                 runtime::Nanoseconds after);

// How long after the renewal left a racing step's body goes on, drawn from `rng`: none (two in
// five), 1 to 5 ms or 5 to 40 ms (three in ten each), the round trip's every point.
runtime::Nanoseconds draw_race_delay(sim::Rng& rng);

// Every step of `workflow`, with a chance of one in four, made to race its lease's renewal, with
// `after` drawn by draw_race_delay.
runtime::Workflow with_renewal_races(sim::World& world, runtime::Workflow workflow, sim::Rng& rng);

}  // namespace fencesim::scenarios
