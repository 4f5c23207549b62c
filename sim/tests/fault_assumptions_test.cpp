// Which fault plans stay inside the protocol's assumptions (sim::within_assumptions, whose label
// decides whether a run's liveness and belief are judged): a clock drifting beyond the bound is
// outside them whichever way it drifts (a clock slow by 600 ppm is as far out as one fast by
// 600), and a step of a store's wall clock is outside them while an instance's is not.
#include <gtest/gtest.h>

#include "sim/fault.h"

namespace fencesim::sim::fault_assumptions_test {
namespace {

Fault fault_of(FaultKind kind, std::string node, std::int64_t amount) {
  Fault fault{};
  fault.kind = kind;
  fault.node = std::move(node);
  fault.amount = amount;
  return fault;
}

const std::vector<std::string> kStores{"lease-store"};

TEST(FaultAssumptions, ADriftBeyondTheBoundIsOutsideWhicheverWayItDrifts) {
  for (const std::int64_t ppm : {500, -500}) {
    EXPECT_TRUE(within_assumptions(FaultPlan{{fault_of(FaultKind::kClockDrift, "instance-1", ppm)}},
                                   500, kStores))
        << ppm;
  }
  for (const std::int64_t ppm : {501, -501, -600}) {
    EXPECT_FALSE(within_assumptions(
        FaultPlan{{fault_of(FaultKind::kClockDrift, "instance-1", ppm)}}, 500, kStores))
        << ppm;
  }
}

TEST(FaultAssumptions, OnlyAStepOfAStoresWallClockIsOutside) {
  const std::int64_t step = -2'000'000'000;
  EXPECT_TRUE(within_assumptions(FaultPlan{{fault_of(FaultKind::kClockStep, "instance-1", step)}},
                                 500, kStores));
  EXPECT_FALSE(within_assumptions(FaultPlan{{fault_of(FaultKind::kClockStep, "lease-store", step)}},
                                  500, kStores));
  // A migration steps the wall clock only by its amount: none, and the store stays inside.
  EXPECT_TRUE(within_assumptions(FaultPlan{{fault_of(FaultKind::kMigrate, "lease-store", 0)}}, 500,
                                 kStores));
  EXPECT_FALSE(within_assumptions(FaultPlan{{fault_of(FaultKind::kMigrate, "lease-store", step)}},
                                  500, kStores));
}

}  // namespace
}  // namespace fencesim::sim::fault_assumptions_test
