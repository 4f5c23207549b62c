// A corpus entry is fixed only if every fault of its plan still fired: the plan's faults and the
// run's firings are matched as multisets (red team 39d-21 matched them as sets, so one firing
// covered two identical faults, and an entry whose second stall no longer met its trigger was
// reported fixed).
#include "cli/corpus_faults.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace fencesim::cli::corpus_faults_test {
namespace {

sim::Fault stall(std::int64_t at_ns) {
  sim::Fault fault{};
  fault.kind = sim::FaultKind::kStall;
  fault.node = "instance-1";
  fault.at_ns = at_ns;
  fault.duration_ns = 1'000'000'000;
  return fault;
}

TEST(CorpusFaults, TwoIdenticalFaultsNeedTwoFirings) {
  const sim::FaultPlan plan{{stall(5'000'000'000), stall(5'000'000'000), stall(9'000'000'000)}};
  const std::string twin = sim::describe(plan.faults[0]);
  const std::string other = sim::describe(plan.faults[2]);
  ASSERT_NE(twin, other);
  EXPECT_EQ(unfired_faults(plan, {{twin, 2}, {other, 1}}), std::vector<std::string>{});
  EXPECT_EQ(unfired_faults(plan, {{twin, 1}, {other, 1}}), std::vector<std::string>{twin});
  EXPECT_EQ(unfired_faults(plan, {{other, 1}}), (std::vector<std::string>{twin, twin}));
  EXPECT_EQ(unfired_faults(plan, {}), (std::vector<std::string>{twin, twin, other}));
}

}  // namespace
}  // namespace fencesim::cli::corpus_faults_test
