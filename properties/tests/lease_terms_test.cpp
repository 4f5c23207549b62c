// lease-terms on hand-made histories (the store's record of takes and renewals against the world's
// terms), and the policy a world gives its instances: the runtime's own defaults unless a scenario
// changed a term.
#include "sim/lease_terms.h"

#include <gtest/gtest.h>

#include "properties/invariants_lease_terms.h"
#include "properties/tests/world_of.h"
#include "sim/world.h"

namespace fencesim::properties::lease_terms_test {
namespace {

using runtime::kSecond;
const runtime::LeaseKey kTree{"tenant-1", "order-1"};
constexpr runtime::Nanoseconds kTerms = 30 * kSecond;

sim::HistoryEvent store_call(sim::StoreOp op, const std::string& holder, runtime::Nanoseconds ttl,
                             std::uint64_t index) {
  auto call = std::make_shared<sim::StoreCall>();
  call->op = op;
  call->holder = holder;
  call->key = kTree;
  call->ttl_ns = ttl;
  call->outcome = op == sim::StoreOp::kTake ? "taken" : "renewed";
  sim::HistoryEvent e;
  e.index = index;
  e.world = sim::WorldEventKind::kStoreCall;
  e.store = std::move(call);
  return e;
}

TEST(LeaseTerms, TakesAndRenewalsOfTheTermsPass) {
  const Events events{store_call(sim::StoreOp::kTake, "a", kTerms, 0),
                      store_call(sim::StoreOp::kRenew, "a", kTerms, 1)};
  std::vector<Violation> found;
  check_lease_terms(events, kTerms, found);
  EXPECT_TRUE(found.empty());
}

TEST(LeaseTerms, ALongerOrShorterLeaseIsReportedOncePerHolderAndTtl) {
  const Events events{store_call(sim::StoreOp::kTake, "a", kTerms + kSecond, 0),
                      store_call(sim::StoreOp::kRenew, "a", kTerms + kSecond, 1),
                      store_call(sim::StoreOp::kRenew, "b", kTerms - kSecond, 2)};
  std::vector<Violation> found;
  check_lease_terms(events, kTerms, found);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].events, std::vector<std::uint64_t>{0});
  EXPECT_EQ(found[1].events, std::vector<std::uint64_t>{2});
}

// A shorter lease breaks the terms as a longer one does: the holder's belief and the store's no
// longer agree (red team round 31b, bug 16: only a longer ttl reported; the test above caught it by
// its one shorter renewal alone).
TEST(LeaseTerms, AShorterTakeIsReported) {
  const Events events{store_call(sim::StoreOp::kTake, "a", kTerms - 1, 0)};
  std::vector<Violation> found;
  check_lease_terms(events, kTerms, found);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].events, std::vector<std::uint64_t>{0});
  EXPECT_NE(found[0].message.find("a take of"), std::string::npos) << found[0].message;
}

// A renewal is judged on its own ttl, not its take's: a runtime that takes with the terms and
// renews with another is reported at the renewal (red team round 31b, bug 17: takes only judged).
TEST(LeaseTerms, ARenewalAskingAnotherTtlThanItsTakesIsReported) {
  const Events events{store_call(sim::StoreOp::kTake, "a", kTerms, 0),
                      store_call(sim::StoreOp::kRenew, "a", kTerms + kSecond, 1)};
  std::vector<Violation> found;
  check_lease_terms(events, kTerms, found);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].events, std::vector<std::uint64_t>{1});
  EXPECT_NE(found[0].message.find("a renewal of"), std::string::npos) << found[0].message;
}

TEST(LeaseTerms, OtherCallsAreNotJudged) {
  const Events events{store_call(sim::StoreOp::kRelease, "a", 0, 0)};
  std::vector<Violation> found;
  check_lease_terms(events, kTerms, found);
  EXPECT_TRUE(found.empty());
}

TEST(LeaseTerms, AWorldIsJudgedByItsOwnTerms) {
  sim::WorldOptions options;
  options.lease.ttl_ns = 20 * kSecond;  // not the default
  const Events kept{store_call(sim::StoreOp::kTake, "a", 20 * kSecond, 0)};
  EXPECT_TRUE(testing::judged_in_world(LeaseTermsKept{}, kept, options).empty());
  const Events defaults{store_call(sim::StoreOp::kTake, "a", kTerms, 0)};
  EXPECT_EQ(testing::judged_in_world(LeaseTermsKept{}, defaults, options).size(), 1U);
}

TEST(LeaseTerms, AnInstanceRunsWithTheRuntimesDefaultsUnlessAScenarioChangedATerm) {
  // Unchanged terms: the runtime's defaults, field for field (whatever they are: a runtime whose
  // defaults differ from the ADR's is for the oracles to catch, not for the world to correct).
  const runtime::LeasePolicy defaults;
  const runtime::LeasePolicy same = sim::LeaseTerms{}.runtime_policy();
  EXPECT_EQ(same.ttl_ns, defaults.ttl_ns);
  EXPECT_EQ(same.renew_interval_ns, defaults.renew_interval_ns);
  EXPECT_EQ(same.drift_bound_ppm, defaults.drift_bound_ppm);
  EXPECT_EQ(same.drift_margin_min_ns, defaults.drift_margin_min_ns);
  sim::LeaseTerms scenario;
  scenario.renew_interval_ns = 1 * kSecond;
  const runtime::LeasePolicy changed = scenario.runtime_policy();
  EXPECT_EQ(changed.renew_interval_ns, 1 * kSecond);
  EXPECT_EQ(changed.ttl_ns, defaults.ttl_ns);
}

}  // namespace
}  // namespace fencesim::properties::lease_terms_test
