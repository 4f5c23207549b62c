// The world's cancel client (World::cancel_at) is a client of the checkpoint store like any other:
// a request that gets no reply (the store down, the message lost) is sent again, once a second,
// until the store answers. A client that gave up at the first silence would leave the tree
// uncancelled, and every oracle of cancels (#360) with nothing to judge, while each run passes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/execution_context.h"
#include "sim/world.h"

namespace fencesim::sim::testing::world_cancel_client_test {
namespace {

const runtime::LeaseKey kTree{"tenant-1", "order-1"};

TEST(WorldCancelClient, ACancelThatGetsNoReplyIsSentAgainUntilTheStoreAnswers) {
  WorldOptions options;
  options.seed = 3;
  options.safety_phase_ns = 30 * runtime::kSecond;
  options.liveness_budget_ns = 60 * runtime::kSecond;
  World world(options);
  world.add_lease_store();
  world.add_instance("instance-1");
  world.workflows().add(
      runtime::Workflow{"order", {runtime::StepItem{"wait", [](runtime::ExecutionContext& ctx) {
                                                      for (int i = 0; i < 20; ++i)
                                                        ctx.env().sleep(runtime::kSecond);
                                                    }}}});
  world.submit(kTree, "order");
  // The store answers nothing from 1 s to 6 s; the cancel is sent at 2 s.
  world.set_fault_plan(
      FaultPlan{{Fault{FaultKind::kStoreDown, "lease-store", "", 1 * runtime::kSecond, std::nullopt,
                       5 * runtime::kSecond}}});
  world.cancel_at(2 * runtime::kSecond, kTree);
  world.run();
  std::vector<std::string> said;
  for (const HistoryEvent& e : world.history().events()) {
    if (e.world == WorldEventKind::kCancelRequest) said.push_back(e.runtime.detail.str());
  }
  ASSERT_GE(said.size(), 4u);
  EXPECT_EQ(said.front(), "sent");
  EXPECT_EQ(said[1], "no-reply");
  EXPECT_EQ(said[said.size() - 2], "sent");
  EXPECT_EQ(said.back(), "recorded");
  EXPECT_TRUE(world.checkpoints().load(kTree).cancelled);
}

}  // namespace
}  // namespace fencesim::sim::testing::world_cancel_client_test
