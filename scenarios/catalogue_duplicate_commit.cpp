// A checkpoint commit the network delivers twice, the second copy long after the first (a copy
// stuck in a queue, a proxy's retry after its own timeout): the tree has completed and its holder
// released the lease by the time the copy reaches the checkpoint service, which must refuse a
// commit under a released token (ADR-0023: checkpoint writes are fenced, #335). Runtime mutant
// redteam16-06-checkpoint-accepts-released-token (and red team 45c-04, the same bug planted again)
// was caught by about 1% of the mixes' runs, where their duplicate windows happen to meet a
// commit; here every run sends its last commits through such a window.
#include "scenarios/builder.h"
#include "scenarios/fault_spec.h"
#include "scenarios/order_workflow.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios {

using runtime::EventKind;
using runtime::kMillisecond;
using runtime::kSecond;

static void register_catalogue_duplicate_commit(ScenarioRegistry& registry) {
  ScenarioBuilder("late-copy-of-a-commit")
      .describe(
          "the network delivers the tree's last checkpoint commits twice, the second copy up to "
          "45 s late: it reaches the checkpoint service after the tree completed and its lease "
          "was released, and must be refused")
      .safety_phase(60 * kSecond)
      .sink("payments")
      .checkpoint_store()
      .instance("instance-1")
      .workflow([](sim::World& world, sim::Rng&) { return quick_order(world); })
      .tree("tenant-1", "order-1", "order")
      // From the last step's checkpoint (the second the holder sends) through the tree's
      // completion, every message to the checkpoint service is delivered twice.
      .fault(network_duplicate("checkpoint-store")
                 .after_at("instance-1", EventKind::kCheckpointSent, 2)
                 .lasting(500 * kMillisecond)
                 .probability(1.0))
      // measured over seeds 1..300: checkpoint-refused 70.0% (a late copy comes in half of the
      // duplicates, and one of the two commits' copies lands late in most runs)
      .marks({"checkpoint-refused >= 40%"})
      .add_to(registry);
}

// The one line that makes this file's scenarios built in (scenarios/scenario.h).
const ScenarioRegistration kCatalogueDuplicateCommitRegistration(
    register_catalogue_duplicate_commit);

}  // namespace fencesim::scenarios
