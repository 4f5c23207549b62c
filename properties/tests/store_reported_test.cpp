// store-reported-as-replied on hand-made histories: a store's reports of what it judged (grants,
// renewals, commits) against the simulator's records of the requests it replied to.
#include <gtest/gtest.h>

#include "properties/invariants_store_reported.h"
#include "properties/tests/story_event.h"

namespace fencesim::properties::store_reported_test {
namespace {

using runtime::EventKind;
using runtime::kSecond;

constexpr sim::NodeId kStore = 1;
const runtime::LeaseKey kTree{"tenant-1", "order-1"};

class Store {
 public:
  // The store's own report (its observer's event) at `at_ns`.
  void reported(std::int64_t at_ns, EventKind kind, std::string holder, runtime::Token token,
                std::int64_t value, std::string step = {}) {
    sim::HistoryEvent e = testing::next_event(events_, kStore, sim::WorldEventKind::kRuntime, at_ns);
    e.runtime = runtime::RuntimeEvent{kind, std::move(holder), kTree, {}, token, std::move(step),
                                      {}, value};
    events_.push_back(std::move(e));
  }
  // The simulator's record of the request the store replied to.
  void replied(std::int64_t at_ns, sim::StoreCall c) {
    c.key = kTree;
    c.store = "lease-store";
    sim::HistoryEvent e =
        testing::next_event(events_, kStore, sim::WorldEventKind::kStoreCall, at_ns);
    e.store = std::make_shared<const sim::StoreCall>(std::move(c));
    events_.push_back(std::move(e));
  }
  static sim::StoreCall lease_call(sim::StoreOp op, std::string outcome, runtime::Token token,
                                   runtime::Token lease_token, std::int64_t expires_ns) {
    sim::StoreCall c;
    c.op = op;
    c.holder = "instance-1";
    c.token = token;
    c.outcome = std::move(outcome);
    c.lease = runtime::Lease{kTree, "instance-1", lease_token, expires_ns, false};
    return c;
  }
  static sim::StoreCall commit(std::string step, runtime::Token token, std::string outcome,
                               runtime::Token epoch) {
    sim::StoreCall c;
    c.op = step == "<tree>" ? sim::StoreOp::kCommitTree : sim::StoreOp::kCommitStep;
    if (step != "<tree>") c.argument = step;
    c.token = token;
    c.outcome = std::move(outcome);
    c.reply_token = epoch;
    return c;
  }
  std::vector<Violation> judged() const {
    std::vector<Violation> out;
    check_store_reported_as_replied(events_, out);
    return out;
  }

 private:
  Events events_;
};

TEST(StoreReportedAsReplied, ReportsThatRepeatTheirRepliesPass) {
  Store s;
  s.reported(1, EventKind::kStoreLeaseGranted, "instance-1", 1, 31 * kSecond);
  s.replied(1, Store::lease_call(sim::StoreOp::kTake, "taken", 0, 1, 31 * kSecond));
  s.reported(10, EventKind::kStoreLeaseRenewed, "instance-1", 1, 40 * kSecond);
  s.replied(10, Store::lease_call(sim::StoreOp::kRenew, "renewed", 1, 1, 40 * kSecond));
  s.reported(11, EventKind::kStoreCheckpointCommitted, "lease-store", 1, 1, "charge");
  s.replied(11, Store::commit("charge", 1, "committed", 1));
  s.reported(12, EventKind::kStoreCheckpointRefused, "lease-store", 1, 2, "<tree>");
  s.replied(12, Store::commit("<tree>", 1, "refused", 2));
  // A request the store judged without a report (a read, a refused take) pairs with nothing.
  s.replied(13, Store::lease_call(sim::StoreOp::kRead, "ok", 0, 1, 40 * kSecond));
  EXPECT_TRUE(s.judged().empty());
}

TEST(StoreReportedAsReplied, ARenewalReportedWithTheExpiryBeforeItIsReported) {
  // Red team 31a's bug 23: the store reported the lease's old expiry for a renewal.
  Store s;
  s.reported(10, EventKind::kStoreLeaseRenewed, "instance-1", 1, 31 * kSecond);
  s.replied(10, Store::lease_call(sim::StoreOp::kRenew, "renewed", 1, 1, 40 * kSecond));
  const std::vector<Violation> out = s.judged();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].invariant, "store-reported-as-replied");
  EXPECT_NE(out[0].message.find("reply's lease ends at 40000000000"), std::string::npos)
      << out[0].message;
}

TEST(StoreReportedAsReplied, ARefusedCommitReportedAtTheRequestersTokenIsReported) {
  // Red team 31a's bug 15: the key's epoch reported as the requester's token.
  Store s;
  s.reported(12, EventKind::kStoreCheckpointRefused, "lease-store", 1, 1, "charge");
  s.replied(12, Store::commit("charge", 1, "refused", 2));
  const std::vector<Violation> out = s.judged();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NE(out[0].message.find("the reply's epoch 2"), std::string::npos) << out[0].message;
}

TEST(StoreReportedAsReplied, AGrantOrACommitReportedOtherwiseThanRepliedIsReported) {
  Store s;
  s.reported(1, EventKind::kStoreLeaseGranted, "instance-1", 2, 31 * kSecond);  // token 2
  s.replied(1, Store::lease_call(sim::StoreOp::kTake, "taken", 0, 1, 31 * kSecond));
  s.reported(2, EventKind::kStoreCheckpointCommitted, "lease-store", 1, 1, "charge");
  s.replied(2, Store::commit("charge", 1, "refused", 1));  // committed reported, refused replied
  EXPECT_EQ(s.judged().size(), 2u);
}

// A grant reported to another holder than the reply's lease names is reported, token and expiry
// alike (red team 36b-50 compared the token and the expiry alone).
TEST(StoreReportedAsReplied, AGrantReportedToAnotherHolderIsReported) {
  Store s;
  s.reported(1, EventKind::kStoreLeaseGranted, "instance-2", 1, 31 * kSecond);
  s.replied(1, Store::lease_call(sim::StoreOp::kTake, "taken", 0, 1, 31 * kSecond));
  const std::vector<Violation> out = s.judged();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NE(out[0].message.find("is token 1 of instance-1"), std::string::npos) << out[0].message;
}

// A grant reported until another time than the reply's lease ends is reported, as a renewal's
// is (red team 41a-06 dropped the grant's expiry from the comparison, and nothing noticed).
TEST(StoreReportedAsReplied, AGrantReportedUntilAnotherTimeIsReported) {
  Store s;
  s.reported(1, EventKind::kStoreLeaseGranted, "instance-1", 1, 30 * kSecond);
  s.replied(1, Store::lease_call(sim::StoreOp::kTake, "taken", 0, 1, 31 * kSecond));
  const std::vector<Violation> out = s.judged();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NE(out[0].message.find("until 30000000000 reported"), std::string::npos)
      << out[0].message;
  EXPECT_NE(out[0].message.find("until 31000000000"), std::string::npos) << out[0].message;
}

// A renewal reported of another token than the request renewed is reported, its expiry right or
// not (red team 41a-26 compared the renewal's expiry alone).
TEST(StoreReportedAsReplied, ARenewalReportedOfAnotherTokenIsReported) {
  Store s;
  s.reported(10, EventKind::kStoreLeaseRenewed, "instance-1", 2, 40 * kSecond);
  s.replied(10, Store::lease_call(sim::StoreOp::kRenew, "renewed", 1, 1, 40 * kSecond));
  const std::vector<Violation> out = s.judged();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].invariant, "store-reported-as-replied");
}

TEST(StoreReportedAsRepliedEveryReport, TwoRenewalsReportedWrongAreBothReported) {
  Store s;
  for (int i = 0; i < 2; ++i) {
    s.reported(10 + i, EventKind::kStoreLeaseRenewed, "instance-1", 1, 31 * kSecond);
    s.replied(10 + i, Store::lease_call(sim::StoreOp::kRenew, "renewed", 1, 1, 40 * kSecond));
  }
  EXPECT_EQ(s.judged().size(), 2u);
}

}  // namespace
}  // namespace fencesim::properties::store_reported_test
