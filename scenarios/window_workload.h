#pragma once
// Workload pieces that reach the windows where bugs hide (issue 9, section 3): a step that keeps
// working after its write returned, and withdrawals at every moment of a tree's life, on every
// instance, for every step path. Each records, as a mark, the window it reached.
#include <memory>
#include <string>
#include <vector>

#include "runtime/workflow.h"
#include "scenarios/tree_watch.h"
#include "scenarios/unchecked_system.h"
#include "sim/world.h"

namespace fencesim::scenarios {

// Works for `duration`, writes its effect `name` to `sink`, then keeps going: a second, distinct
// effect to the same sink (marks second-effect-written), confirmNow and a call to a system that
// cannot check tokens (marks unchecked-after-write), and an effect at `other_sink` (marks
// other-sink-written). A refusal ends the step as it must (the fenced error propagates).
runtime::StepItem busy_write_step(sim::World& world, std::string name,
                                  runtime::Nanoseconds duration, std::string sink,
                                  std::string other_sink, std::shared_ptr<UncheckedSystem> system);

// Every step path of `workflow` under the root's lease (its steps, its ParentInstance branches'
// and ThisWorkflow levels' steps; not its AnyInstance children's, which are trees of their own),
// built with runtime::join_path, in workflow order.
std::vector<std::string> step_paths(const runtime::WorkflowRegistry& workflows,
                                    const std::string& workflow);

// What a withdrawal does: marks withdrawal-<moment> (TreeWatch::moment); then, if its frame has a fence, writes its
// own effect `effect` to `sink` through it (write_withdrawal_effect), again while its reply is
// lost (marks fenced-withdrawal-written when that returned); if not, marks
// unfenced-withdrawal-refused. Nothing escapes it, except that half the fenced ones that write
// then linger (up to 20 s), looking at their step's signal, and give up with an error of their own
// once it is aborted (marks withdrawal-gave-up, and withdrawal-gave-up-after-lingering when that
// is 5 s or more into its linger). An empty `effect` only looks at the fence.
//
// A withdrawal's write is at most once: nobody runs a withdrawal again, so a write lost with its
// lease (the reply lost, then the lease expired locally) never lands, and the tree may still
// complete. The exactly-once oracle judges a withdrawal's effect at most once (swarm seed 13 was
// flagged while it demanded every sent write of a completed tree).
// `named_path` is the step path the withdrawal was asked for (recorded with the frame it ran in,
// record_withdrawal_frame).
runtime::StepBody withdrawal_body(sim::World& world, std::shared_ptr<TreeWatch> watch,
                                  std::string named_path, std::string sink, std::string effect);

// Timed withdrawals: `count` drawn between 2 and 10, each at a drawn time from before the first
// tree arrives to past the safety phase, by a drawn instance of `instances`, for a drawn tree of
// `trees` and a drawn path of `paths` (now and then one that names no step).
void add_timed_withdrawals(sim::World& world, const std::shared_ptr<TreeWatch>& watch,
                           sim::Rng& rng, const std::vector<std::string>& instances,
                           const std::vector<runtime::LeaseKey>& trees,
                           const std::vector<std::string>& paths);

// Withdrawals aimed at a step's moments: `step`, wrapped, at its start and at its end may (by a
// draw) ask a drawn instance for a withdrawal for its own tree (a root or an AnyInstance child)
// and its own path or another of `paths`, a little later: inside the step, inside its checkpoint,
// between steps, inside a remote-children wait. Most write an effect of their own, the rest only
// look at the fence. The draws come from `probes` at run time (the
// run is deterministic, so they are too); at most `limit` per run.
struct WithdrawalProbes {
  sim::World* world;
  std::shared_ptr<TreeWatch> watch;
  std::vector<std::string> instances;
  std::vector<std::string> paths;
  sim::Rng rng;
  int left;
};
runtime::StepItem probed(std::shared_ptr<WithdrawalProbes> probes, runtime::StepItem step);
// Wraps every step of `workflow` (not its groups) with probed().
runtime::Workflow probed(const std::shared_ptr<WithdrawalProbes>& probes,
                         runtime::Workflow workflow);

}  // namespace fencesim::scenarios
