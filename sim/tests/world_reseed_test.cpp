// World::reseed, the branch point of an exploring sweep: from the reseed on, every draw of the
// world comes from the streams of the new seed, the nodes' own streams (the runtime's poll jitter
// and ids, through Env::random_u64) included. A branch whose nodes kept drawing from the run's
// seed would repeat its parent's jitter: branches that differ less than they claim, with every
// run still green.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "runtime/execution_context.h"
#include "sim/world.h"

namespace fencesim::sim::testing::world_reseed_test {
namespace {

// What the one step of a one-instance world draws from its node's stream, in a world of `seed`,
// reseeded with `reseed` before it runs (as a branch is, at its branch point).
std::vector<std::uint64_t> drawn_by_the_step(std::uint64_t seed,
                                             std::optional<std::uint64_t> reseed) {
  WorldOptions options;
  options.seed = seed;
  options.safety_phase_ns = 10 * runtime::kSecond;
  options.liveness_budget_ns = 30 * runtime::kSecond;
  World world(options);
  world.add_lease_store();
  world.add_instance("instance-1");
  std::vector<std::uint64_t> drawn;
  world.workflows().add(runtime::Workflow{
      "order", {runtime::StepItem{"draw", [&drawn](runtime::ExecutionContext& ctx) {
                                    for (int i = 0; i < 3; ++i)
                                      drawn.push_back(ctx.env().random_u64());
                                  }}}});
  world.submit(runtime::LeaseKey{"tenant-1", "order-1"}, "order");
  if (reseed) world.reseed(*reseed);
  EXPECT_EQ(world.run().outcome, RunOutcome::kCompleted);
  EXPECT_EQ(drawn.size(), 3u);
  return drawn;
}

TEST(WorldReseed, ANodesDrawsComeFromTheNewSeedsStream) {
  const std::vector<std::uint64_t> run = drawn_by_the_step(11, std::nullopt);
  const std::vector<std::uint64_t> branch = drawn_by_the_step(11, 7);
  EXPECT_NE(branch, run);
  // The new seed decides them, whatever seed the run began with.
  EXPECT_EQ(drawn_by_the_step(99, 7), branch);
}

}  // namespace
}  // namespace fencesim::sim::testing::world_reseed_test
