// What a system that cannot check tokens measures (scenarios/unchecked_system.h): the overlap of
// a stale holder's call with the holder that took its lease over, read from the lease store's
// grants as they stand when the call ends. A takeover granted while the call is at work is the
// case the measure exists for: the caller never learns of it, and nothing refuses it.
#include "scenarios/unchecked_system.h"

#include <gtest/gtest.h>

#include <memory>

#include "properties/run.h"
#include "scenarios/builder.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios::unchecked_system_test {
namespace {

using runtime::ExecutionContext;
using runtime::kSecond;

// Instance 1 begins a 60 s call 1 s into its step, then loses the lease store for a minute: its
// lease (ttl 30 s) ends in the store by about 31 s and instance 2 takes the tree over, while the
// call still works until about 61 s and the new holder works on. The overlap is that half minute
// (red team 35b-23: the store's grants read before the call waited, so a takeover during the call
// never counted).
TEST(UncheckedSystem, ATakeoverGrantedDuringTheCallIsOverlap) {
  ScenarioRegistry registry;
  auto overlaps = std::make_shared<std::vector<std::int64_t>>();
  auto began = std::make_shared<bool>(false);
  ScenarioBuilder("takeover-during-call")
      .describe("test only: a takeover granted while an unchecked call is at work")
      .safety_phase(120 * kSecond)
      .instance("instance-1")
      .instance("instance-2", 5 * kSecond)
      .workflow([overlaps, began](sim::World& world, sim::Rng&) {
        auto mailer = std::make_shared<UncheckedSystem>(world);
        return runtime::Workflow{
            "order",
            {runtime::StepItem{"notify", [mailer, overlaps, began](ExecutionContext& ctx) {
                                 if (*began) {  // the new holder's run: it holds on
                                   ctx.env().sleep(40 * kSecond);
                                   return;
                                 }
                                 *began = true;
                                 ctx.env().sleep(kSecond);
                                 overlaps->push_back(mailer->call(ctx, 60 * kSecond));
                               }}}};
      })
      .tree("tenant-1", "order-1", "order")
      .fault(partition("instance-1", "lease-store").at(2 * kSecond).lasting(60 * kSecond))
      .add_to(registry);
  const properties::RunReport report =
      properties::run_scenario(registry, properties::RunRequest{"takeover-during-call", 1});
  ASSERT_EQ(overlaps->size(), 1u) << report.detail;
  EXPECT_GT(overlaps->front(), 20 * kSecond);
  EXPECT_LT(overlaps->front(), 40 * kSecond);
}

}  // namespace
}  // namespace fencesim::scenarios::unchecked_system_test
