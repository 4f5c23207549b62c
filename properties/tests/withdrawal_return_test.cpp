// The returned-withdrawal-not-lost oracle (invariants_withdrawal_return.h) on hand-made
// histories: a fenced withdrawal whose body returned after its holder gave the lease back, nothing
// having lost it first, and whose end the runtime reports as a loss (red team 31a's bug 27) is
// reported, every such end, not only the first; honest ends, and the ends it may not judge (a lease
// lost, refused or run out before its release, a body that threw, a release after the return, an
// unfenced withdrawal), pass.
#include <gtest/gtest.h>

#include "properties/invariants_withdrawal_return.h"
#include "properties/tests/reports_of.h"
#include "properties/tests/story_event.h"

namespace fencesim::properties::withdrawal_return_test {
namespace {

using runtime::EventKind;
using runtime::kSecond;

constexpr sim::NodeId kInstance = 2;
constexpr sim::NodeId kOther = 3;
const runtime::LeaseKey kTree{"tenant-1", "order-1"};
constexpr std::string_view kLost = "execution.lease-lost";

class Story {
 public:
  // The holders' monotonic clocks read `clock_offset_s` seconds more than true time (a clock
  // starts where its machine booted: beliefs and releases are compared on it, never on true time).
  explicit Story(std::int64_t clock_offset_s = 0) : offset_s_(clock_offset_s) {}
  // A runtime report of the node's holder at `at_s` seconds of true time.
  std::uint64_t report(std::int64_t at_s, EventKind kind, runtime::Token token,
                       std::string_view detail = {}, std::int64_t value = 0,
                       sim::NodeId node = kInstance) {
    sim::HistoryEvent e =
        testing::next_event(events_, node, sim::WorldEventKind::kRuntime, at_s * kSecond);
    e.local_monotonic_ns = (at_s + offset_s_) * kSecond;
    e.runtime.kind = kind;
    e.runtime.holder = node == kInstance ? "instance-1" : "instance-2";
    e.runtime.key = kTree;
    e.runtime.token = token;
    e.runtime.step = "long";
    e.runtime.detail = std::string(detail);
    e.runtime.value = value;
    events_.push_back(std::move(e));
    return events_.back().index;
  }
  // Token `token` taken at `at_s`, believed for 29 s (confirmedUntil on the holder's clock).
  std::uint64_t taken(std::int64_t at_s, runtime::Token token, sim::NodeId node = kInstance) {
    return report(at_s, EventKind::kLeaseTaken, token, {}, (at_s + offset_s_ + 29) * kSecond,
                  node);
  }
  // The withdrawal's body returned (its own record) and the runtime reported its end.
  std::uint64_t returned_and_ended(std::int64_t at_s, runtime::Token token, std::string_view detail,
                                   sim::NodeId node = kInstance) {
    sim::HistoryEvent e =
        testing::next_event(events_, node, sim::WorldEventKind::kObserved, at_s * kSecond);
    e.local_monotonic_ns = (at_s + offset_s_) * kSecond;
    e.runtime.holder = "withdrawal-body-returned";
    e.runtime.key = kTree;
    e.runtime.token = token;
    e.runtime.step = "long";
    e.detail = "returned";
    events_.push_back(std::move(e));
    return report(at_s, EventKind::kWithdrawalEnded, token, detail, 0, node);
  }
  std::vector<Violation> check() const {
    std::vector<Violation> out;
    check_returned_withdrawal_not_lost(events_, out);
    return out;
  }

 private:
  Events events_;
  std::int64_t offset_s_ = 0;
};

// Whether the release came while the lease was still believed is read on the holder's clock, the
// one confirmedUntil counts on (red team 41a-31 compared the release's true time with it).
TEST(ReturnedWithdrawalNotLost, TheReleaseIsWeighedAgainstTheBeliefOnTheHoldersClock) {
  // The clock 100 s behind true time: released at true 108 s, 8 s on the clock, inside the
  // belief (until 29 s on the clock): judged.
  Story behind(-100);
  behind.taken(100, 1);
  behind.report(102, EventKind::kWithdrawal, 1, "fenced");
  behind.report(108, EventKind::kLeaseReleased, 1);
  behind.returned_and_ended(112, 1, kLost);
  EXPECT_EQ(behind.check().size(), 1u);
  // The clock 100 s ahead: released at true 40 s, 140 s on the clock, after the belief ran out
  // (129 s on the clock): a lease run out is lost, not given back, and not judged.
  Story ahead(100);
  ahead.taken(0, 1);
  ahead.report(2, EventKind::kWithdrawal, 1, "fenced");
  ahead.report(40, EventKind::kLeaseReleased, 1);
  ahead.returned_and_ended(44, 1, kLost);
  EXPECT_TRUE(ahead.check().empty());
}

TEST(ReturnedWithdrawalNotLost, AReturnAfterTheReleaseReportedAsALossIsReported) {
  Story s;
  s.taken(0, 1);
  s.report(2, EventKind::kWithdrawal, 1, "fenced");
  const std::uint64_t release = s.report(8, EventKind::kLeaseReleased, 1);
  const std::uint64_t ended = s.returned_and_ended(12, 1, kLost);
  const std::vector<Violation> found = s.check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].invariant, "returned-withdrawal-not-lost");
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{release, ended - 1, ended}));
  EXPECT_NE(found[0].message.find("ended with 'execution.lease-lost'"), std::string::npos)
      << found[0].message;
}

TEST(ReturnedWithdrawalNotLost, EveryWrongEndIsReportedNotOnlyTheFirst) {
  Story s;
  s.taken(0, 1);
  s.report(8, EventKind::kLeaseReleased, 1);
  const std::uint64_t first = s.returned_and_ended(10, 1, kLost);
  const std::uint64_t second = s.returned_and_ended(11, 1, "execution.error");
  const std::vector<Violation> found = s.check();
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].events.back(), first);
  EXPECT_EQ(found[1].events.back(), second);
}

TEST(ReturnedWithdrawalNotLost, AReturnAfterTheReleaseEndedOkPasses) {
  Story s;
  s.taken(0, 1);
  s.report(8, EventKind::kLeaseReleased, 1);
  s.returned_and_ended(12, 1, "ok");
  EXPECT_TRUE(s.check().empty());
}

TEST(ReturnedWithdrawalNotLost, ALeaseLostOrRefusedBeforeItsReleaseIsNotJudged) {
  for (const EventKind first : {EventKind::kLeaseLost, EventKind::kRenewRefused,
                                EventKind::kWriteRefused, EventKind::kCheckpointRefused}) {
    Story s;
    s.taken(0, 1);
    s.report(5, first, 1, first == EventKind::kLeaseLost ? "local-expiry" : "");
    s.report(8, EventKind::kLeaseReleased, 1);
    s.returned_and_ended(12, 1, kLost);
    EXPECT_TRUE(s.check().empty()) << runtime::to_string(first);
  }
  // A checkpoint refused because the tree was cancelled ended nothing: still judged.
  Story cancelled;
  cancelled.taken(0, 1);
  cancelled.report(5, EventKind::kCheckpointRefused, 1, "cancelled");
  cancelled.report(8, EventKind::kLeaseReleased, 1);
  cancelled.returned_and_ended(12, 1, kLost);
  EXPECT_EQ(cancelled.check().size(), 1u);
}

TEST(ReturnedWithdrawalNotLost, AReleaseAtOrAfterTheBeliefRanOutIsNotJudged) {
  Story at;
  at.taken(0, 1);                               // believed until 29 s
  at.report(29, EventKind::kLeaseReleased, 1);  // the belief's last instant is gone
  at.returned_and_ended(31, 1, kLost);
  EXPECT_TRUE(at.check().empty());
  Story before;
  before.taken(0, 1);
  before.report(28, EventKind::kLeaseReleased, 1);
  before.returned_and_ended(31, 1, kLost);
  EXPECT_EQ(before.check().size(), 1u);
  // A renewal moves the belief on: a release after the grant's belief but within the renewal's.
  Story renewed;
  renewed.taken(0, 1);
  renewed.report(10, EventKind::kLeaseRenewed, 1, {}, 39 * kSecond);
  renewed.report(35, EventKind::kLeaseReleased, 1);
  renewed.returned_and_ended(36, 1, kLost);
  EXPECT_EQ(renewed.check().size(), 1u);
}

TEST(ReturnedWithdrawalNotLost, OnlyABodyThatReturnedAfterTheReleaseIsJudged) {
  // Its body threw: no record of its return, so its end may be anything.
  Story threw;
  threw.taken(0, 1);
  threw.report(8, EventKind::kLeaseReleased, 1);
  threw.report(12, EventKind::kWithdrawalEnded, 1, kLost);
  EXPECT_TRUE(threw.check().empty());
  // It returned while the lease was still held, the release came later: not this oracle's case.
  Story early;
  early.taken(0, 1);
  early.returned_and_ended(5, 1, kLost);
  early.report(8, EventKind::kLeaseReleased, 1);
  EXPECT_TRUE(early.check().empty());
  // An unfenced withdrawal (token 0) is not judged.
  Story unfenced;
  unfenced.taken(0, 1);
  unfenced.report(8, EventKind::kLeaseReleased, 1);
  unfenced.returned_and_ended(12, runtime::kTokenNone, kLost);
  EXPECT_TRUE(unfenced.check().empty());
  // A return on another node is not this withdrawal's: each node's return pairs with its own end.
  Story other;
  other.taken(0, 1);
  other.report(8, EventKind::kLeaseReleased, 1);
  other.returned_and_ended(12, 1, kLost, kOther);
  EXPECT_TRUE(other.check().empty());
}

}  // namespace
}  // namespace fencesim::properties::withdrawal_return_test
