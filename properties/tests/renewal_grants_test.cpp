// The store's renewal grants as a confirm's answers (properties/renewal_grants.h): a grant of the
// confirm's own renewal is one sent from its node, under its token, between the confirm's start
// and its return, both ends included: a confirm whose renewal left in the very nanosecond it
// returned was answered by it (red team 36b-02 left that end out, and strict-confirm would then
// accuse a confirm that had its answer).
#include "properties/renewal_grants.h"

#include <gtest/gtest.h>

#include <memory>

namespace fencesim::properties::renewal_grants_test {
namespace {

const sim::NameKey kKey(runtime::LeaseKey{"tenant-1", "order-1"});

sim::HistoryEvent grant(std::uint64_t index, std::int64_t sent_ns, sim::NodeId from,
                        runtime::Token token, const char* outcome = "renewed") {
  auto call = std::make_shared<sim::StoreCall>();
  call->op = sim::StoreOp::kRenew;
  call->key = kKey;
  call->token = token;
  call->sent_ns = sent_ns;
  call->from = from;
  call->outcome = sim::Name(outcome);
  sim::HistoryEvent e;
  e.index = index;
  e.world = sim::WorldEventKind::kStoreCall;
  e.store = call;
  return e;
}

TEST(RenewalGrants, AGrantSentAtEitherEndOfTheConfirmIsItsAnswer) {
  RenewalGrants grants;
  grants.add(grant(10, 100, 2, 5));
  ASSERT_NE(grants.first_answer(kKey, 5, 2, 100, 200), nullptr);  // sent as the confirm began
  EXPECT_EQ(grants.first_answer(kKey, 5, 2, 100, 200)->index, 10u);
  ASSERT_NE(grants.first_answer(kKey, 5, 2, 50, 100), nullptr);  // sent as it returned
  EXPECT_EQ(grants.first_answer(kKey, 5, 2, 101, 200), nullptr);  // before it began
  EXPECT_EQ(grants.first_answer(kKey, 5, 2, 50, 99), nullptr);    // after it returned
  EXPECT_EQ(grants.first_answer(kKey, 5, 3, 50, 200), nullptr);   // another node's
  EXPECT_EQ(grants.first_answer(kKey, 6, 2, 50, 200), nullptr);   // another token's
}

// The first in the store's order, not in send order; and only grants count.
TEST(RenewalGrants, TheFirstGrantInTheStoresOrderAnswers) {
  RenewalGrants grants;
  grants.add(grant(10, 150, 2, 5, "stale"));
  grants.add(grant(11, 180, 2, 5));
  grants.add(grant(12, 120, 2, 5));
  const RenewalGrants::Grant* first = grants.first_answer(kKey, 5, 2, 100, 200);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->index, 11u);
}

}  // namespace
}  // namespace fencesim::properties::renewal_grants_test
