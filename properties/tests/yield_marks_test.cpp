// The marks of a yielded tree's takeover (properties/mark_rules.cpp, StepsAndWaits) on hand-made
// histories: a holder yields its tree's lease in a remote-children wait, another holder takes the
// tree (and may commit its steps), and the yielding holder takes the lease back, or is refused.
// And the same rule's takeover-mid-step: only a take while the old token's step still runs.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "properties/mark_rules.h"
#include "properties/tests/story_event.h"

namespace fencesim::properties::yield_marks_test {
namespace {

using runtime::EventKind;

const runtime::LeaseKey kTree{"tenant-1", "order-1"};

class Story {
 public:
  Story() : world_(sim::WorldOptions{}), rules_(make_mark_rules(world_)) {}
  void event(const std::string& holder, EventKind kind, runtime::Token token) {
    const sim::NodeId node = holder == "instance-1" ? 1 : 2;
    sim::HistoryEvent e = testing::next_event(events_, node, sim::WorldEventKind::kRuntime,
                                              static_cast<std::int64_t>(events_.size()));
    e.runtime.kind = kind;
    e.runtime.holder = holder;
    e.runtime.key = kTree;
    e.runtime.token = token;
    events_.push_back(e);
    for (const auto& rule : rules_) {
      rule->observe(e, [this](std::string_view mark) { ++reached_[std::string(mark)]; });
    }
  }
  // instance-1 waits on remote children and yields token 1.
  void yield() {
    event("instance-1", EventKind::kRemoteWaitBegan, 1);
    event("instance-1", EventKind::kLeaseReleased, 1);
  }
  // instance-2 takes the yielded tree (token 2) and, if `commits`, commits a step of it.
  void taken_over(bool commits) {
    event("instance-2", EventKind::kLeaseTaken, 2);
    if (commits) event("instance-2", EventKind::kCheckpointCommitted, 2);
  }
  std::uint64_t reached(const std::string& mark) const {
    auto it = reached_.find(mark);
    return it == reached_.end() ? 0 : it->second;
  }

 private:
  Events events_;
  sim::World world_;
  std::vector<std::unique_ptr<MarkRule>> rules_;
  std::map<std::string, std::uint64_t> reached_;
};

TEST(YieldMarksTest, ARetakeAfterAnotherHolderCommittedIsARetakeAfterProgress) {
  Story s;
  s.yield();
  s.taken_over(true);
  s.event("instance-2", EventKind::kLeaseReleased, 2);
  s.event("instance-1", EventKind::kLeaseTaken, 3);
  EXPECT_EQ(s.reached("lease-yielded"), 1u);
  EXPECT_EQ(s.reached("yield-taken-over"), 1u);
  EXPECT_EQ(s.reached("retake-after-takeover"), 1u);
  EXPECT_EQ(s.reached("retake-after-progress"), 1u);
  EXPECT_EQ(s.reached("retake-refused-after-yield"), 0u);
}

TEST(YieldMarksTest, ARetakeWithNoCommitBetweenIsOnlyARetakeAfterTakeover) {
  Story s;
  s.yield();
  s.taken_over(false);
  s.event("instance-2", EventKind::kLeaseReleased, 2);  // it yielded in turn
  s.event("instance-1", EventKind::kLeaseTaken, 3);
  EXPECT_EQ(s.reached("retake-after-takeover"), 1u);
  EXPECT_EQ(s.reached("retake-after-progress"), 0u);
}

TEST(YieldMarksTest, ARetakeNobodyTookOverIsNoMark) {
  Story s;
  s.yield();
  s.event("instance-1", EventKind::kCheckpointCommitted, 1);  // its own commit is no progress
  s.event("instance-1", EventKind::kLeaseTaken, 2);
  EXPECT_EQ(s.reached("lease-yielded"), 1u);
  EXPECT_EQ(s.reached("yield-taken-over"), 0u);
  EXPECT_EQ(s.reached("retake-after-takeover"), 0u);
}

TEST(YieldMarksTest, ARefusedRetakeAfterATakeoverIsMarkedAndEndsTheYield) {
  Story s;
  s.yield();
  s.taken_over(true);
  s.event("instance-1", EventKind::kTakeRefused, 2);
  EXPECT_EQ(s.reached("retake-refused-after-yield"), 1u);
  // The pass is over: a later take by the same holder is a new pass, not a retake.
  s.event("instance-2", EventKind::kLeaseReleased, 2);
  s.event("instance-1", EventKind::kLeaseTaken, 3);
  EXPECT_EQ(s.reached("retake-after-takeover"), 0u);
}

TEST(YieldMarksTest, ANewPassOfTheYieldingHolderIsNoRetake) {
  Story s;
  s.yield();
  s.taken_over(true);
  s.event("instance-1", EventKind::kTreeAbandoned, 1);  // its pass ended without a retake
  s.event("instance-2", EventKind::kLeaseReleased, 2);
  s.event("instance-1", EventKind::kLeaseTaken, 3);
  s.event("instance-1", EventKind::kTreeStarted, 3);
  EXPECT_EQ(s.reached("yield-taken-over"), 1u);
  EXPECT_EQ(s.reached("retake-after-takeover"), 0u);
  EXPECT_EQ(s.reached("retake-after-progress"), 0u);
}

// takeover-mid-step: a key taken under a new token while a step under the old one still runs.
TEST(StepMarksTest, ATakeoverWhileTheOldTokensStepRunsIsMidStep) {
  Story s;
  s.event("instance-1", EventKind::kStepStarted, 1);
  s.event("instance-2", EventKind::kStoreLeaseGranted, 2);
  EXPECT_EQ(s.reached("takeover-mid-step"), 1u);
}

TEST(StepMarksTest, ATakeoverAfterTheOldTokensStepsEndedIsNotMidStep) {
  Story s;
  s.event("instance-1", EventKind::kStepStarted, 1);
  s.event("instance-1", EventKind::kStepEnded, 1);
  s.event("instance-2", EventKind::kStoreLeaseGranted, 2);
  EXPECT_EQ(s.reached("takeover-mid-step"), 0u) << "its step had ended before the take";
  s.event("instance-2", EventKind::kStepStarted, 2);
  s.event("instance-2", EventKind::kStepEnded, 2);
  s.event("instance-1", EventKind::kStoreLeaseGranted, 3);
  EXPECT_EQ(s.reached("takeover-mid-step"), 0u);
}

}  // namespace
}  // namespace fencesim::properties::yield_marks_test
