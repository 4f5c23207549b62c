// The cancel-seen-once-per-pass oracle (invariants_cancel_seen_once.h) on hand-made histories: a
// pass that reports its cancel twice (red team 31a: learn_from without its "not yet seen" test, a
// commit_tree answered "cancelled" after the watcher saw the cancel during the last step), or
// after it ended (a watcher that reads after its pass is over), is reported; honest passes, and a
// later pass of the same holder over the tree learning the cancel again, pass.
#include <gtest/gtest.h>

#include <algorithm>

#include "properties/invariants_cancel_seen_once.h"
#include "properties/tests/reports_of.h"
#include "properties/tests/story_event.h"

namespace fencesim::properties::cancel_seen_once_test {
namespace {

using runtime::EventKind;

constexpr sim::NodeId kInstance = 2;
const runtime::LeaseKey kTree{"tenant-1", "order-1"};

class Story {
 public:
  std::uint64_t report(EventKind kind, runtime::Token token, std::string detail = {},
                       std::string holder = "instance-1") {
    sim::HistoryEvent e =
        testing::next_event(events_, kInstance, sim::WorldEventKind::kRuntime, ++now_);
    e.runtime.kind = kind;
    e.runtime.holder = std::move(holder);
    e.runtime.key = kTree;
    e.runtime.token = token;
    e.runtime.detail = std::move(detail);
    events_.push_back(std::move(e));
    return events_.back().index;
  }
  std::uint64_t seen(runtime::Token token, std::string how, std::string holder = "instance-1") {
    return report(EventKind::kCancelSeen, token, std::move(how), std::move(holder));
  }
  // The checkpoint store answered a load of the tree sent from the holder's node at `sent_ns`.
  std::uint64_t load(std::int64_t sent_ns, bool cancelled = true) {
    sim::StoreCall c;
    c.op = sim::StoreOp::kLoad;
    c.key = kTree;
    c.from = kInstance;
    c.sent_ns = sent_ns;
    c.outcome = "ok";
    c.cancelled = cancelled;
    sim::HistoryEvent e = testing::next_event(events_, 1, sim::WorldEventKind::kStoreCall, ++now_);
    e.store = std::make_shared<const sim::StoreCall>(std::move(c));
    events_.push_back(std::move(e));
    return events_.back().index;
  }
  std::int64_t now() const { return now_; }
  std::vector<Violation> check() const {
    std::vector<Violation> out;
    check_cancel_seen_once_per_pass(events_, out);
    return out;
  }

 private:
  Events events_;
  std::int64_t now_ = 0;
};

TEST(CancelSeenOncePerPass, APassThatLearnsOnceAndEndsThePassPasses) {
  Story s;
  s.report(EventKind::kLeaseTaken, 1);
  s.report(EventKind::kTreeStarted, 1);
  s.seen(1, "watcher");
  s.report(EventKind::kCheckpointRefused, 1, "cancelled");  // commit_tree: no second learning
  s.report(EventKind::kErrorClassified, 1, "execution.cancelled");
  s.report(EventKind::kTreeCancelled, 1, "execution.cancelled");
  s.report(EventKind::kLeaseReleased, 1);
  // The next pass (a new token) learns of the cancel at its start: its own first learning.
  s.report(EventKind::kLeaseTaken, 2);
  s.report(EventKind::kTreeStarted, 2);
  s.seen(2, "pass-start");
  s.report(EventKind::kErrorClassified, 2, "execution.cancelled");
  s.report(EventKind::kTreeCancelled, 2, "execution.cancelled");
  // Another holder's pass over the tree learns on its own.
  s.report(EventKind::kTreeStarted, 3, {}, "instance-2");
  s.seen(3, "step-start", "instance-2");
  EXPECT_TRUE(s.check().empty());
}

TEST(CancelSeenOncePerPass, APassThatYieldedLearnsOnceUnderItsRetakenToken) {
  Story s;
  s.report(EventKind::kTreeStarted, 1);
  s.report(EventKind::kLeaseReleased, 1);  // a yield for the remote-children wait: not the end
  s.seen(1, "watcher");
  s.report(EventKind::kLeaseTaken, 2);  // taken back
  s.report(EventKind::kErrorClassified, 2, "execution.cancelled");
  s.report(EventKind::kTreeCancelled, 2, "execution.cancelled");
  EXPECT_TRUE(s.check().empty());
}

TEST(CancelSeenOncePerPass, AReadInFlightAtThePassEndMayBringTheCancelAfterIt) {
  // The watcher's load left while the pass ran; the pass ended (fenced) before its answer came
  // back with the cancel (completion-in-flight pct seed 5, the honest runtime).
  Story s;
  s.report(EventKind::kTreeStarted, 1);
  const std::int64_t sent = s.now();
  s.report(EventKind::kErrorClassified, 1, "execution.lease-lost.fenced");
  s.report(EventKind::kTreeAbandoned, 1, "execution.lease-lost.fenced");
  s.load(sent);
  s.seen(1, "watcher");
  EXPECT_TRUE(s.check().empty());
}

// A read in flight at the end excuses one learning after it, the pass's first: a pass that had
// already learned of the cancel while it ran and reports it again after its end learned it twice
// (red team 36b-42 excused every learning after the end that such a read could explain).
TEST(CancelSeenOncePerPass, ALearningAfterTheEndOfAPassThatHadLearnedIsReported) {
  Story s;
  const std::uint64_t started = s.report(EventKind::kTreeStarted, 1);
  const std::int64_t sent = s.now();
  s.seen(1, "step-start");  // learned while it ran
  s.report(EventKind::kErrorClassified, 1, "execution.cancelled");
  s.report(EventKind::kTreeCancelled, 1, "execution.cancelled");
  s.load(sent);
  const std::uint64_t again = s.seen(1, "watcher");
  const std::vector<Violation> found = s.check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(std::find(found[0].events.begin(), found[0].events.end(), again),
            found[0].events.end());
  EXPECT_EQ(found[0].events.front(), started);
}

TEST(CancelSeenOncePerPass, AReadSentAfterThePassEndedIsNotThePasss) {
  Story s;
  const std::uint64_t started = s.report(EventKind::kTreeStarted, 1);
  s.load(s.now(), false);  // a read while it ran, which found no cancel
  const std::uint64_t ended = s.report(EventKind::kTreeAbandoned, 1, "execution.lease-lost");
  s.report(EventKind::kLeaseReleased, 1);
  s.load(s.now());  // the watcher woke after the end and read anyway
  const std::uint64_t late = s.seen(1, "watcher");
  const std::vector<Violation> found = s.check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{started, ended, late}));
}

// A read that excuses a learning after the end is the pass's own: one sent while an earlier
// pass of the holder over the tree ran (which found the cancel and learned of it then) excuses
// nothing in the next pass, which read nothing that found it (red team 44b-20: the bound of the
// read at the pass's start dropped passed every test).
TEST(CancelSeenOncePerPass, AReadOfAnEarlierPassExcusesNoLearningAfterTheNextOnesEnd) {
  Story s;
  s.report(EventKind::kTreeStarted, 1);
  s.load(s.now());  // pass 1's watcher finds the cancel
  s.seen(1, "watcher");
  s.report(EventKind::kErrorClassified, 1, "execution.lease-lost");
  s.report(EventKind::kTreeAbandoned, 1, "execution.lease-lost");
  const std::uint64_t started = s.report(EventKind::kTreeStarted, 2);
  const std::uint64_t ended = s.report(EventKind::kTreeAbandoned, 2, "execution.lease-lost");
  const std::uint64_t late = s.seen(2, "watcher");
  const std::vector<Violation> found = s.check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{started, ended, late}));
}

TEST(CancelSeenOncePerPass, ASecondLearningInOnePassIsReported) {
  // The watcher saw the cancel during the last step, which ignored its signal and returned ok;
  // commit_tree was answered "cancelled" and the pass reported the cancel again.
  Story s;
  const std::uint64_t started = s.report(EventKind::kTreeStarted, 1);
  const std::uint64_t first = s.seen(1, "watcher");
  s.report(EventKind::kCheckpointRefused, 1, "cancelled");
  const std::uint64_t again = s.seen(1, "commit-tree");
  s.report(EventKind::kErrorClassified, 1, "execution.cancelled");
  const std::vector<Violation> found = s.check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].invariant, "cancel-seen-once-per-pass");
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{started, first, again}));
}

TEST(CancelSeenOncePerPass, ALearningAfterThePassEndedIsReported) {
  // The pass was abandoned (its lease lost); its watcher woke after the end and read the cancel.
  Story s;
  const std::uint64_t started = s.report(EventKind::kTreeStarted, 1);
  const std::uint64_t decided = s.report(EventKind::kErrorClassified, 1, "execution.lease-lost");
  s.report(EventKind::kTreeAbandoned, 1, "execution.lease-lost");
  s.report(EventKind::kLeaseReleased, 1);
  const std::uint64_t late = s.seen(1, "watcher");
  const std::vector<Violation> found = s.check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{started, decided, late}));
}

TEST(CancelSeenOncePerPass, ALearningAfterThePassEndedCancelledIsReported) {
  // A pass ended by its tree's cancel is over as any other end is, with or without a
  // classification before it (this runtime classifies first; the rule does not ask it to). Red
  // team 41a-04: kTreeCancelled dropped from the ends, and nothing noticed.
  Story s;
  const std::uint64_t started = s.report(EventKind::kTreeStarted, 1);
  const std::uint64_t ended = s.report(EventKind::kTreeCancelled, 1, "execution.cancelled");
  const std::uint64_t late = s.seen(1, "watcher");
  const std::vector<Violation> found = s.check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{started, ended, late}));
}

TEST(CancelSeenOncePerPass, ALearningUnderTheRetakenTokenAfterThePassEndedIsReported) {
  // The pass yielded (token 1), took the tree back (token 2) and completed; its watcher then
  // reported the cancel under token 2. The retaken token is the pass's even after the pass ended
  // and left the holder's running passes (red team 41a-20: the retake not mapped to its pass, and
  // the late learning went unjudged).
  Story s;
  const std::uint64_t started = s.report(EventKind::kTreeStarted, 1);
  s.report(EventKind::kLeaseReleased, 1);
  s.report(EventKind::kLeaseTaken, 2);
  const std::uint64_t ended = s.report(EventKind::kTreeCompleted, 2);
  const std::uint64_t late = s.seen(2, "watcher");
  const std::vector<Violation> found = s.check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{started, ended, late}));
}

TEST(CancelSeenOncePerPass, ALearningAfterTheNextPassBeganIsStillTheEndedPasss) {
  // The watcher of the pass under token 1 woke after the holder's next pass (token 2) began.
  Story s;
  const std::uint64_t started = s.report(EventKind::kTreeStarted, 1);
  const std::uint64_t ended = s.report(EventKind::kTreeCompleted, 1);
  s.report(EventKind::kTreeStarted, 2);
  const std::uint64_t late = s.seen(1, "watcher");
  s.seen(2, "step-start");  // the running pass's own first learning
  const std::vector<Violation> found = s.check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{started, ended, late}));
}

TEST(CancelSeenOncePerPassEveryReport, EveryRepeatedAndEveryLateLearningIsReported) {
  Story s;
  const std::uint64_t a = s.report(EventKind::kTreeStarted, 1);
  const std::uint64_t a_first = s.seen(1, "watcher");
  const std::uint64_t a_again = s.seen(1, "commit-tree");
  const std::uint64_t a_third = s.seen(1, "commit-tree");
  const std::uint64_t a_end = s.report(EventKind::kTreeAbandoned, 1, "execution.cancelled");
  const std::uint64_t a_late = s.seen(1, "watcher");
  const std::uint64_t b = s.report(EventKind::kTreeStarted, 2, {}, "instance-2");
  const std::uint64_t b_first = s.seen(2, "watcher", "instance-2");
  const std::uint64_t b_again = s.seen(2, "commit-tree", "instance-2");
  EXPECT_EQ(testing::events_of(s.check()),
            (testing::Reports{{a, a_first, a_again},
                              {a, a_first, a_third},
                              {a, a_end, a_late},
                              {b, b_first, b_again}}));
}

}  // namespace
}  // namespace fencesim::properties::cancel_seen_once_test
