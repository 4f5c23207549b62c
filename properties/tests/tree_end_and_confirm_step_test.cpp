// Issue 29 items 1 and 3: ended-tree-not-live, withdrawal-frame's ends and confirm-within-step on
// hand-made histories.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "properties/invariants_confirm_within_step.h"
#include "properties/invariants_ended_tree.h"
#include "properties/invariants_fence_use.h"
#include "properties/tests/story_event.h"
#include "properties/tests/reports_of.h"

namespace fencesim::properties::tree_end_and_confirm_step_test {
namespace {

using runtime::EventKind;
using runtime::kSecond;

const runtime::LeaseKey kTree{"tenant-1", "order-1"};
constexpr sim::NodeId kInstance = 1;
constexpr sim::NodeId kStore = 2;

class Story {
 public:
  void store_call(std::int64_t at_ns, sim::StoreOp op, std::string outcome) {
    sim::HistoryEvent e = next(kStore, sim::WorldEventKind::kStoreCall, at_ns);
    auto call = std::make_shared<sim::StoreCall>();
    call->op = op;
    call->key = kTree;
    call->outcome = std::move(outcome);
    e.store = std::move(call);
    events_.push_back(std::move(e));
  }
  // A workload's or world's kObserved record at the instance.
  void observed(std::int64_t at_ns, std::string what, std::string step, std::string outcome,
                runtime::Token token = runtime::kTokenNone) {
    sim::HistoryEvent e = next(kInstance, sim::WorldEventKind::kObserved, at_ns);
    e.runtime.holder = std::move(what);
    e.runtime.key = kTree;
    e.runtime.step = std::move(step);
    e.runtime.token = token;
    e.detail = std::move(outcome);
    events_.push_back(std::move(e));
  }
  void runtime_event(std::int64_t at_ns, EventKind kind, std::string step, std::string detail = {},
                     runtime::Token token = 1) {
    sim::HistoryEvent e = next(kInstance, sim::WorldEventKind::kRuntime, at_ns);
    e.runtime.kind = kind;
    e.runtime.holder = "instance-1";
    e.runtime.key = kTree;
    e.runtime.token = token;
    e.runtime.step = std::move(step);
    e.runtime.detail = std::move(detail);
    events_.push_back(std::move(e));
  }
  std::vector<Violation> ended_tree_not_live() const {
    std::vector<Violation> out;
    check_ended_tree_not_live(events_, out);
    return out;
  }
  std::vector<Violation> withdrawal_frame() const {
    std::vector<Violation> out;
    check_withdrawal_frame(events_, out);
    return out;
  }
  std::vector<Violation> confirm_within_step() const {
    std::vector<Violation> out;
    check_confirm_within_step(events_, out);
    return out;
  }

 private:
  sim::HistoryEvent next(sim::NodeId node, sim::WorldEventKind kind, std::int64_t at_ns) {
    return testing::next_event(events_, node, kind, at_ns);
  }
  Events events_;
};

// A cancelled tree whose pass finished it: the cancel recorded at 1 s, the placement finished at
// 2 s.
Story cancelled_and_finished() {
  Story s;
  s.store_call(1 * kSecond, sim::StoreOp::kCancel, "recorded");
  s.store_call(2 * kSecond, sim::StoreOp::kFinish, "ok");
  return s;
}

TEST(EndedTreeNotLive, ARefusalAsLiveAfterTheCancelledPassFinishedIsCaught) {
  Story s = cancelled_and_finished();
  s.observed(3 * kSecond, "withdrawal-began", "a", "");
  s.runtime_event(3 * kSecond, EventKind::kWithdrawalRefused, "a", "the tree is live", 0);
  s.observed(3 * kSecond, "withdrawal-returned", "a",
             "execution.context-unavailable.withdrawal-refused");
  EXPECT_EQ(s.ended_tree_not_live().size(), 1u);
}

TEST(EndedTreeNotLive, ARecordedCancelAloneIsNotTheEnd) {
  Story s;
  s.store_call(1 * kSecond, sim::StoreOp::kCancel, "recorded");
  s.observed(3 * kSecond, "withdrawal-began", "a", "");
  s.runtime_event(3 * kSecond, EventKind::kWithdrawalRefused, "a", "the tree is live", 0);
  EXPECT_TRUE(s.ended_tree_not_live().empty());
  // Nor a finish without a recorded cancel before it.
  Story t;
  t.store_call(1 * kSecond, sim::StoreOp::kFinish, "ok");
  t.observed(3 * kSecond, "withdrawal-began", "a", "");
  t.runtime_event(3 * kSecond, EventKind::kWithdrawalRefused, "a", "the tree is live", 0);
  EXPECT_TRUE(t.ended_tree_not_live().empty());
}

TEST(EndedTreeNotLive, AWithdrawalThatBeganBeforeTheEndOrFoundNoStoreIsNotJudged) {
  Story s;
  s.store_call(1 * kSecond, sim::StoreOp::kCancel, "recorded");
  s.observed(1 * kSecond, "withdrawal-began", "a", "");
  s.store_call(2 * kSecond, sim::StoreOp::kFinish, "ok");
  s.runtime_event(3 * kSecond, EventKind::kWithdrawalRefused, "a", "the tree is live", 0);
  EXPECT_TRUE(s.ended_tree_not_live().empty());
  Story t = cancelled_and_finished();
  t.observed(3 * kSecond, "withdrawal-began", "a", "");
  t.runtime_event(3 * kSecond, EventKind::kWithdrawalRefused, "a",
                  "the checkpoint store cannot say whether the tree ended", 0);
  EXPECT_TRUE(t.ended_tree_not_live().empty());
}

TEST(EndedTreeNotLive, ACompletedTreeEndsAtItsCommit) {
  Story s;
  s.store_call(1 * kSecond, sim::StoreOp::kCommitTree, "committed");
  s.observed(3 * kSecond, "withdrawal-began", "a", "");
  s.runtime_event(3 * kSecond, EventKind::kWithdrawalRefused, "a", "the tree is live", 0);
  EXPECT_EQ(s.ended_tree_not_live().size(), 1u);
}

// Two withdrawals of one step overlap; one returns. Which one cannot be told, but one is still
// open, and its refusal as live after the tree's end is judged (red team round 31b, bug 12: a
// return closed every open withdrawal of the step, and the second refusal went unreported).
TEST(EndedTreeNotLive, OneOfTwoOverlappingWithdrawalsReturningLeavesTheOtherJudged) {
  Story s;
  s.store_call(1 * kSecond, sim::StoreOp::kCommitTree, "committed");  // 0: the end
  s.observed(2 * kSecond, "withdrawal-began", "a", "");               // 1
  s.observed(3 * kSecond, "withdrawal-began", "a", "");               // 2
  s.observed(4 * kSecond, "withdrawal-returned", "a", "ok");          // 3
  s.runtime_event(5 * kSecond, EventKind::kWithdrawalRefused, "a", "the tree is live", 0);  // 4
  EXPECT_EQ(testing::events_of(s.ended_tree_not_live()), (testing::Reports{{0, 1, 4}}));
}

// A withdrawal that began before the tree's end and returned is closed by its return: a later one
// of the same step, begun after the end and refused as live, is judged (a mechanical mutant of
// session 43 closed withdrawals by any other record than their return, and the earlier one, left
// open, excused the later: every test above passed).
TEST(EndedTreeNotLive, AWithdrawalThatReturnedBeforeTheEndExcusesNoLaterOne) {
  Story s;
  s.observed(1 * kSecond, "withdrawal-began", "a", "");                 // 0
  s.observed(2 * kSecond, "withdrawal-returned", "a", "ok");            // 1
  s.store_call(3 * kSecond, sim::StoreOp::kCommitTree, "committed");    // 2: the end
  s.observed(4 * kSecond, "withdrawal-began", "a", "");                 // 3
  s.runtime_event(4 * kSecond, EventKind::kWithdrawalRefused, "a", "the tree is live", 0);  // 4
  EXPECT_EQ(testing::events_of(s.ended_tree_not_live()), (testing::Reports{{2, 3, 4}}));
}

TEST(WithdrawalFrame, UnfencedAfterTheCancelledPassFinishedIsAllowedButNotAfterTheRecordingAlone) {
  Story ended = cancelled_and_finished();
  ended.observed(3 * kSecond, "withdrawal", "a", "unfenced");
  EXPECT_TRUE(ended.withdrawal_frame().empty());
  Story recorded;
  recorded.store_call(1 * kSecond, sim::StoreOp::kCancel, "recorded");
  recorded.observed(3 * kSecond, "withdrawal", "a", "unfenced");
  EXPECT_EQ(recorded.withdrawal_frame().size(), 1u);
}

TEST(ConfirmWithinStep, AConfirmReturnedAfterItsStepsBodyReturnedIsCaught) {
  Story s;
  s.runtime_event(1 * kSecond, EventKind::kStepStarted, "notify");
  s.observed(1 * kSecond, "confirm", "notify", "confirmed", 1);  // while it runs
  s.runtime_event(2 * kSecond, EventKind::kCheckpointSent, "notify");
  EXPECT_TRUE(s.confirm_within_step().empty());
  s.observed(2 * kSecond, "confirm", "notify", "confirmed", 1);  // a helper's, after the body
  EXPECT_EQ(s.confirm_within_step().size(), 1u);
}

// A step's runs under two tokens at one node are two runs: the later token's run of the step
// running does not make a confirm of the earlier run, returned after that run's body returned,
// one made within its step (red team round 31b, bug 11: the slot keyed without the token).
TEST(ConfirmWithinStep, ALaterTokensRunOfTheStepDoesNotCoverAConfirmOfTheEarlierRun) {
  Story s;
  s.runtime_event(1 * kSecond, EventKind::kStepStarted, "notify", {}, 1);    // 0
  s.runtime_event(2 * kSecond, EventKind::kCheckpointSent, "notify", {}, 1);  // 1
  s.runtime_event(3 * kSecond, EventKind::kStepStarted, "notify", {}, 2);    // 2: a retake's run
  s.observed(4 * kSecond, "confirm", "notify", "confirmed", 1);              // 3: token 1's
  const std::vector<Violation> found = s.confirm_within_step();
  EXPECT_EQ(testing::events_of(found), (testing::Reports{{0, 1, 3}}));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].message.find("under token 1"), std::string::npos) << found[0].message;
}

TEST(ConfirmWithinStep, AFailedConfirmOrAnotherTokensRunIsNotJudged) {
  Story s;
  s.runtime_event(1 * kSecond, EventKind::kStepStarted, "notify");
  s.runtime_event(2 * kSecond, EventKind::kStepEnded, "notify", "execution.lease-lost");
  s.observed(2 * kSecond, "confirm", "notify", "error: no fence", 1);
  s.runtime_event(3 * kSecond, EventKind::kStepStarted, "notify", {}, 2);
  s.observed(3 * kSecond, "confirm", "notify", "confirmed", 2);
  EXPECT_TRUE(s.confirm_within_step().empty());
}

// --- every report, not only the first
// Each story holds two independent violations of one oracle, and both must be reported with
// their events: an oracle that returned after its first report still fails a run, but hides the
// second from the report and the shrinker, and every test above passed with it
// (tools/quiet-oracles.py --sites --first-only). Events are numbered in the order told.

using testing::events_of;
using testing::Reports;

TEST(EndedTreeNotLiveEveryReport, TwoWithdrawalsRefusedAsLiveAfterTheEndAreBothReported) {
  Story s = cancelled_and_finished();                    // 0, 1: the end
  s.observed(3 * kSecond, "withdrawal-began", "a", "");  // 2
  s.runtime_event(3 * kSecond, EventKind::kWithdrawalRefused, "a", "the tree is live", 0);  // 3
  s.observed(4 * kSecond, "withdrawal-began", "b", "");                                     // 4
  s.runtime_event(4 * kSecond, EventKind::kWithdrawalRefused, "b", "the tree is live", 0);  // 5
  EXPECT_EQ(events_of(s.ended_tree_not_live()), (Reports{{1, 2, 3}, {1, 4, 5}}));
}

TEST(ConfirmWithinStepEveryReport, TwoConfirmsAfterTheirStepsBodiesReturnedAreBothReported) {
  Story s;
  s.runtime_event(1 * kSecond, EventKind::kStepStarted, "notify");                       // 0
  s.runtime_event(1 * kSecond, EventKind::kStepStarted, "ship");                         // 1
  s.runtime_event(2 * kSecond, EventKind::kCheckpointSent, "notify");                    // 2
  s.runtime_event(2 * kSecond, EventKind::kStepEnded, "ship", "execution.step-failed");  // 3
  s.observed(3 * kSecond, "confirm", "notify", "confirmed", 1);                          // 4
  s.observed(3 * kSecond, "confirm", "ship", "confirmed", 1);                            // 5
  EXPECT_EQ(events_of(s.confirm_within_step()), (Reports{{0, 2, 4}, {1, 3, 5}}));
}

}  // namespace
}  // namespace fencesim::properties::tree_end_and_confirm_step_test
