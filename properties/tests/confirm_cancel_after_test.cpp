// The oracle of a confirm's cancel check after its renewal (invariants_confirm_cancel_after.h) on
// hand-made histories: a confirm that returned though its tree's cancel was recorded before the
// renewal that answered it is reported (red team 29a: a confirmNow() without its "confirm-after"
// check passed every other oracle); honest stories pass.
#include <gtest/gtest.h>

#include "properties/invariants_confirm_cancel_after.h"
#include "properties/tests/story_event.h"

namespace fencesim::properties::confirm_cancel_after_test {
namespace {

using sim::StoreCall;
using sim::StoreOp;

const runtime::LeaseKey kTree{"tenant-1", "order-1"};
const runtime::LeaseKey kOtherTree{"tenant-1", "order-2"};
constexpr sim::NodeId kStore = 1;
constexpr sim::NodeId kInstance = 2;
constexpr sim::NodeId kOther = 3;

class Story {
 public:
  std::uint64_t store(StoreOp op, std::string outcome, std::int64_t at_ns, std::int64_t sent_ns,
                      sim::NodeId from = kInstance, const runtime::LeaseKey& key = kTree,
                      runtime::Token token = 1) {
    StoreCall c;
    c.op = op;
    c.key = key;
    c.token = token;
    c.from = from;
    c.sent_ns = sent_ns;
    c.outcome = std::move(outcome);
    sim::HistoryEvent e =
        testing::next_event(events_, kStore, sim::WorldEventKind::kStoreCall, at_ns);
    e.store = std::make_shared<const StoreCall>(std::move(c));
    events_.push_back(std::move(e));
    return events_.back().index;
  }
  std::uint64_t cancel(std::int64_t at_ns, const runtime::LeaseKey& key = kTree,
                       std::string outcome = "recorded") {
    return store(StoreOp::kCancel, std::move(outcome), at_ns, at_ns - 1, sim::kWorldNode, key, 0);
  }
  std::uint64_t confirmed(std::int64_t began_ns, std::int64_t at_ns,
                          std::string outcome = "confirmed", sim::NodeId node = kInstance) {
    sim::HistoryEvent e = testing::next_event(events_, node, sim::WorldEventKind::kObserved, at_ns);
    e.runtime.holder = "confirm";
    e.runtime.key = kTree;
    e.runtime.token = 1;
    e.runtime.step = "ship";
    e.runtime.value = began_ns;
    e.detail = std::move(outcome);
    events_.push_back(std::move(e));
    return events_.back().index;
  }
  std::vector<Violation> check() const {
    std::vector<Violation> out;
    check_confirm_cancel_after_renewal(events_, out);
    return out;
  }

 private:
  std::vector<sim::HistoryEvent> events_;
};

TEST(ConfirmCancelAfterRenewal, AConfirmOfATreeNeverCancelledPasses) {
  Story s;
  s.store(StoreOp::kLoad, "ok", 12, 11);
  s.store(StoreOp::kRenew, "renewed", 14, 13);
  s.store(StoreOp::kLoad, "ok", 16, 15);
  s.confirmed(10, 20);
  EXPECT_TRUE(s.check().empty());
}

TEST(ConfirmCancelAfterRenewal, ACancelRecordedAfterTheGrantDoesNotAccuseTheConfirm) {
  // The after-read reached the store before the cancel: the confirm returned rightly.
  Story s;
  s.store(StoreOp::kLoad, "ok", 12, 11);
  s.store(StoreOp::kRenew, "renewed", 14, 13);
  s.store(StoreOp::kLoad, "ok", 16, 15);
  s.cancel(17);
  s.confirmed(10, 20);
  EXPECT_TRUE(s.check().empty());
}

TEST(ConfirmCancelAfterRenewal, ACancelRecordedWhileTheRenewalWasInFlightMustStopTheConfirm) {
  // The before-read found no cancel; the cancel was recorded before the renewal was granted; the
  // confirm returned anyway: it skipped the check after its renewal.
  Story s;
  s.store(StoreOp::kLoad, "ok", 12, 11);
  const std::uint64_t cancel = s.cancel(13);
  const std::uint64_t grant = s.store(StoreOp::kRenew, "renewed", 14, 12);
  const std::uint64_t confirm = s.confirmed(10, 20);
  const std::vector<Violation> found = s.check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].invariant, "confirm-cancel-after-renewal");
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{cancel, grant, confirm}));
}

// A client that cancels twice: the first recording decides (red team 32b: keyed by the latest
// recording, a second cancel after the renewal excused the confirm the first one should stop).
TEST(ConfirmCancelAfterRenewal, ASecondCancelAfterTheGrantDoesNotExcuseTheFirst) {
  Story s;
  s.store(StoreOp::kLoad, "ok", 12, 11);
  const std::uint64_t first = s.cancel(13);
  const std::uint64_t grant = s.store(StoreOp::kRenew, "renewed", 14, 12);
  s.cancel(15);
  const std::uint64_t confirm = s.confirmed(10, 20);
  const std::vector<Violation> found = s.check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{first, grant, confirm}));
}

// The window is the confirm's whole call, both ends included: a renewal sent in the very
// nanosecond the confirm returned (recorded at the store after the cancel) answered it too (red
// team 36b-64 ended the window a nanosecond early, and the confirm went unjudged).
TEST(ConfirmCancelAfterRenewal, ARenewalSentAsTheConfirmReturnedIsItsAnswer) {
  Story s;
  const std::uint64_t cancel = s.cancel(13);
  const std::uint64_t grant = s.store(StoreOp::kRenew, "renewed", 14, 20);
  const std::uint64_t confirm = s.confirmed(10, 20);
  const std::vector<Violation> found = s.check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{cancel, grant, confirm}));
}

TEST(ConfirmCancelAfterRenewal, EveryConfirmThatSkippedTheCheckIsReported) {
  Story s;
  s.cancel(5);
  s.store(StoreOp::kRenew, "renewed", 14, 12);
  s.confirmed(10, 20);
  s.store(StoreOp::kRenew, "renewed", 34, 32);
  s.confirmed(30, 40);
  EXPECT_EQ(s.check().size(), 2u);
}

TEST(ConfirmCancelAfterRenewal, OnlyTheConfirmsOwnTreeNodeAndGrantsCount) {
  Story s;
  s.cancel(5, kOtherTree);                              // another tree's cancel
  s.cancel(6, kTree, "tree-completed");                 // not recorded
  s.store(StoreOp::kRenew, "renewed", 14, 12, kOther);  // another node's renewal
  s.store(StoreOp::kRenew, "stale", 15, 12);            // not granted
  s.store(StoreOp::kRenew, "renewed", 16, 9);           // sent before the confirm began
  s.confirmed(10, 20);
  // No grant answered this confirm: strict-confirm's business, not this oracle's.
  EXPECT_TRUE(s.check().empty());
  s.confirmed(10, 21, "refused");  // a confirm that threw is what a cancel should cause
  EXPECT_TRUE(s.check().empty());
}

TEST(ConfirmCancelAfterRenewal, AnEarlierGrantAfterTheBeginningDecidesNotALaterOne) {
  // The timer's renewal, sent after the confirm began, was granted before the cancel; the
  // confirm's own was granted after it. The oracle cannot tell which answered the confirm, and
  // stays silent rather than accuse a confirm wrongly.
  Story s;
  s.store(StoreOp::kRenew, "renewed", 12, 11);
  s.cancel(13);
  s.store(StoreOp::kRenew, "renewed", 14, 12);
  s.confirmed(10, 20);
  EXPECT_TRUE(s.check().empty());
}

}  // namespace
}  // namespace fencesim::properties::confirm_cancel_after_test
