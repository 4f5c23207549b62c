// The cancel-is-final oracle (#360) on hand-made histories: an honest cancellation passes, and each
// mistake a runtime could make (a confirm begun after the recording returns, a step after the
// holder saw the cancel, a step in a pass begun after the recording, a completion committed after
// it, a cancel nobody requested, a tree ended before its placement was finished) is reported.
#include <gtest/gtest.h>

#include "properties/invariants_cancel.h"
#include "properties/tests/story_event.h"

namespace fencesim::properties::cancel_invariant_test {
namespace {

using runtime::EventKind;
using sim::StoreCall;
using sim::StoreOp;

const runtime::LeaseKey kTree{"tenant-1", "order-1"};
constexpr sim::NodeId kStore = 1;
constexpr sim::NodeId kInstance = 2;

class Story {
 public:
  void store(StoreOp op, std::string outcome, std::int64_t at_ns, sim::NodeId from = kInstance) {
    StoreCall c;
    c.op = op;
    c.key = kTree;
    c.token = 1;
    c.from = from;
    c.outcome = std::move(outcome);
    sim::HistoryEvent e = stamped(kStore, sim::WorldEventKind::kStoreCall, at_ns);
    e.store = std::make_shared<const StoreCall>(std::move(c));
    events_.push_back(std::move(e));
  }
  void runtime(EventKind kind, std::int64_t at_ns, std::string step = {}) {
    sim::HistoryEvent e = stamped(kInstance, sim::WorldEventKind::kRuntime, at_ns);
    e.runtime = runtime::RuntimeEvent{kind, "instance-1", kTree, "tenant-1:order-1", 1,
                                      std::move(step), {}, 0};
    events_.push_back(std::move(e));
  }
  void confirm(std::int64_t began_ns, std::int64_t returned_ns, std::string outcome) {
    sim::HistoryEvent e = stamped(kInstance, sim::WorldEventKind::kObserved, returned_ns);
    e.runtime.holder = "confirm";
    e.runtime.key = kTree;
    e.runtime.token = 1;
    e.runtime.step = "notify";
    e.runtime.value = began_ns;
    e.detail = std::move(outcome);
    events_.push_back(std::move(e));
  }
  std::vector<Violation> check() const {
    std::vector<Violation> out;
    check_cancel_is_final(events_, out);
    return out;
  }

 private:
  sim::HistoryEvent stamped(sim::NodeId node, sim::WorldEventKind kind, std::int64_t at_ns) {
    return testing::next_event(events_, node, kind, at_ns);
  }
  std::vector<sim::HistoryEvent> events_;
};

// The pass of instance-1 up to the cancel's recording at t=100.
Story started_then_cancelled() {
  Story s;
  s.runtime(EventKind::kTreeStarted, 10);
  s.runtime(EventKind::kStepStarted, 20, "notify");
  s.confirm(30, 40, "confirmed");
  s.confirm(90, 120, "confirmed");  // in flight across the recording: may go either way
  s.store(StoreOp::kCancel, "recorded", 100);
  return s;
}

TEST(CancelIsFinal, AnHonestCancellationPasses) {
  Story s = started_then_cancelled();
  s.confirm(130, 140, "error: execution cancelled");
  s.runtime(EventKind::kCancelSeen, 140);
  s.runtime(EventKind::kStepEnded, 141, "notify");
  s.store(StoreOp::kFinish, "ok", 150);
  s.runtime(EventKind::kTreeCancelled, 160);
  EXPECT_TRUE(s.check().empty());
}

TEST(CancelIsFinal, AConfirmBegunAfterTheRecordingMustNotReturn) {
  Story s = started_then_cancelled();
  s.confirm(101, 140, "confirmed");
  const std::vector<Violation> found = s.check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].invariant, "cancel-is-final");
  EXPECT_NE(found[0].message.find("confirmNow() returned"), std::string::npos);
}

// Strictly after: a confirm begun in the very nanosecond of the recording may have read the store
// before it, and returns without a report; one a nanosecond later may not (red team 36b-27
// reported the first too).
TEST(CancelIsFinal, AConfirmBegunAtTheRecordingsInstantMayReturn) {
  Story at_instant = started_then_cancelled();
  at_instant.confirm(100, 140, "confirmed");
  EXPECT_TRUE(at_instant.check().empty());
  Story later = started_then_cancelled();
  later.confirm(101, 140, "confirmed");
  EXPECT_EQ(later.check().size(), 1u);
}

// The cancel's moment is its first recording: a store that answers "recorded" again later (a
// store that lost its flag) does not move it, and a confirm begun between the two still must not
// return (round 30b: the oracle kept the latest recording, and the confirm went unjudged).
TEST(CancelIsFinal, TheFirstRecordingIsTheCancelsMoment) {
  Story s = started_then_cancelled();          // recorded at t=100 (event 4)
  s.store(StoreOp::kCancel, "recorded", 130);  // event 5: recorded again
  s.confirm(110, 140, "confirmed");            // event 6: begun after the first recording
  const std::vector<Violation> found = s.check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{4, 6}));
}

TEST(CancelIsFinal, NoStepStartsAfterTheHolderSawTheCancel) {
  Story s = started_then_cancelled();
  s.runtime(EventKind::kCancelSeen, 110);
  s.runtime(EventKind::kStepStarted, 120, "pack");
  const std::vector<Violation> found = s.check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].message.find("after it saw the tree's cancel"), std::string::npos);
}

TEST(CancelIsFinal, APassBegunAfterTheRecordingRunsNoStep) {
  Story s;
  s.store(StoreOp::kCancel, "recorded", 5);
  s.runtime(EventKind::kTreeStarted, 10);
  s.runtime(EventKind::kStepStarted, 20, "reserve");
  EXPECT_EQ(s.check().size(), 1u);
}

TEST(CancelIsFinal, TheTreeNeverCompletesAfterTheRecording) {
  Story s = started_then_cancelled();
  s.store(StoreOp::kCommitTree, "committed", 200);
  EXPECT_EQ(s.check().size(), 1u);
  Story refused = started_then_cancelled();
  refused.store(StoreOp::kCommitTree, "cancelled", 200);
  EXPECT_TRUE(refused.check().empty());
}

TEST(CancelIsFinal, NoCancelIsLearnedOrEndedWithoutARecording) {
  Story s;
  s.runtime(EventKind::kTreeStarted, 10);
  s.store(StoreOp::kCancel, "tree-completed", 15);  // answered, not recorded
  s.runtime(EventKind::kCancelSeen, 20);
  s.store(StoreOp::kFinish, "ok", 25);
  s.runtime(EventKind::kTreeCancelled, 30);
  EXPECT_EQ(s.check().size(), 2u);
}

TEST(CancelIsFinal, ATreeEndsCancelledOnlyAfterItsPlacementWasFinished) {
  Story s = started_then_cancelled();
  s.runtime(EventKind::kCancelSeen, 140);
  s.runtime(EventKind::kTreeCancelled, 160);
  EXPECT_EQ(s.check().size(), 1u);
}

// The placement that must be finished is the tree's at the node that ends it: another node's
// finish of it is not (round 30b: any finish in the history let every cancelled tree end).
TEST(CancelIsFinal, AnotherNodesFinishIsNotThePlacementOfTheTreeItEnds) {
  Story s = started_then_cancelled();
  s.runtime(EventKind::kCancelSeen, 140);
  s.store(StoreOp::kFinish, "ok", 150, kInstance + 1);
  s.runtime(EventKind::kTreeCancelled, 160);
  const std::vector<Violation> found = s.check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].message.find("before its placement was finished"), std::string::npos)
      << found[0].message;
}

}  // namespace
}  // namespace fencesim::properties::cancel_invariant_test
