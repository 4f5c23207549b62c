// lost-only-when-lost on hand-made histories: a step that ends lease-lost while the store still
// holds its lease for it, under its token, before its belief ran out and with no refusal, release
// or other holder is reported; each of those reasons, present, silences it. Without these, the
// oracle could judge nothing (a loop that never runs, a condition turned over) and every sweep of
// a correct runtime would stay green: its only other catcher is a runtime mutant of the nightly.
#include <gtest/gtest.h>

#include "properties/invariants_lost_only_when_lost.h"
#include "properties/tests/world_of.h"
#include "runtime/errors.h"

namespace fencesim::properties::lost_only_when_lost_test {
namespace {

using runtime::EventKind;
using runtime::kMillisecond;
using runtime::kSecond;

constexpr sim::NodeId kStore = 1;
constexpr sim::NodeId kNode = 2;
const runtime::LeaseKey kTree{"tenant-1", "order-1"};
constexpr std::int64_t kBelief = 30 * kSecond - 70 * kMillisecond;

class Story {
 public:
  // Holder "a" takes the tree's lease at t=0 (token 1): the store grants it, the holder believes
  // it until kBelief on its own clock.
  Story() {
    store(0, EventKind::kStoreLeaseGranted, "a", 1);
    holder(0, EventKind::kLeaseTaken, 1, {}, kBelief);
  }
  void store(std::int64_t at_ns, EventKind kind, const std::string& holder, runtime::Token token) {
    push(at_ns, kStore, runtime::RuntimeEvent{kind, holder, kTree, {}, token, {}, {}, 0});
  }
  void holder(std::int64_t at_ns, EventKind kind, runtime::Token token, std::string detail = {},
              std::int64_t value = 0) {
    push(at_ns, kNode,
         runtime::RuntimeEvent{kind, "a", kTree, "tenant-1:order-1", token, "charge",
                               std::move(detail), value});
  }
  // The step ends lease-lost at `at_ns`.
  void step_ends_lost(std::int64_t at_ns) {
    holder(at_ns, EventKind::kStepEnded, 1, std::string(runtime::ExecutionLeaseLostError::kCode));
  }
  const Events& events() const { return events_; }
  std::vector<Violation> judged(const RunFacts& facts = {}) const {
    std::vector<Violation> out;
    check_lost_only_when_lost(events_, facts, out);
    return out;
  }

 private:
  void push(std::int64_t at_ns, sim::NodeId node, runtime::RuntimeEvent event) {
    sim::HistoryEvent e;
    e.index = events_.size();
    e.time_ns = at_ns;
    e.local_monotonic_ns = at_ns;
    e.node = node;
    e.runtime = sim::RuntimeRecord(event);
    events_.push_back(std::move(e));
  }
  Events events_;
};

TEST(LostOnlyWhenLost, AStepEndedLostWhileTheStoreStillHoldsItsLeaseIsReported) {
  Story story;
  story.step_ends_lost(5 * kSecond);
  const std::vector<Violation> found = story.judged();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].invariant, "lost-only-when-lost");
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{0, 2}));
}

// As a sweep judges it: the store's expiry by the world's own ttl (20 s here, not the default 30
// s).
TEST(LostOnlyWhenLost, AWorldIsJudgedByItsOwnTtl) {
  sim::WorldOptions options;
  options.lease.ttl_ns = 20 * kSecond;
  Story early;
  early.step_ends_lost(5 * kSecond);
  EXPECT_EQ(testing::judged_in_world(LostOnlyWhenLost{}, early.events(), options).size(), 1u);
  Story after_expiry;
  after_expiry.step_ends_lost(25 * kSecond);
  EXPECT_EQ(after_expiry.judged().size(), 1u);  // the default ttl: the store still held it
  EXPECT_TRUE(testing::judged_in_world(LostOnlyWhenLost{}, after_expiry.events(), options).empty());
}

TEST(LostOnlyWhenLost, ARenewalOfTheLeaseKeepsItLiveAtTheStore) {
  Story story;
  story.store(20 * kSecond, EventKind::kStoreLeaseRenewed, "a", 1);
  story.holder(20 * kSecond, EventKind::kLeaseRenewed, 1, {}, 20 * kSecond + kBelief);
  story.step_ends_lost(40 * kSecond);  // past the grant, within the renewal
  EXPECT_EQ(story.judged().size(), 1u);
}

TEST(LostOnlyWhenLost, AStepEndedLostAfterTheStoresExpiryIsNotReported) {
  Story story;
  story.step_ends_lost(31 * kSecond);
  EXPECT_TRUE(story.judged().empty());
}

TEST(LostOnlyWhenLost, AnotherHoldersGrantARefusalOrARelease) {
  {
    Story story;
    story.store(1 * kSecond, EventKind::kStoreLeaseGranted, "b", 2);
    story.step_ends_lost(5 * kSecond);
    EXPECT_TRUE(story.judged().empty()) << "another holder took it";
  }
  {
    Story story;
    story.holder(4 * kSecond, EventKind::kWriteRefused, 1);
    story.step_ends_lost(5 * kSecond);
    EXPECT_TRUE(story.judged().empty()) << "a refusal reached the holder";
  }
  {
    Story story;
    story.holder(4 * kSecond, EventKind::kLeaseReleased, 1);
    story.step_ends_lost(5 * kSecond);
    EXPECT_TRUE(story.judged().empty()) << "the holder gave it back";
  }
  {
    Story story;
    story.store(4 * kSecond, EventKind::kStoreLeaseReleased, "a", 1);
    story.step_ends_lost(5 * kSecond);
    EXPECT_TRUE(story.judged().empty()) << "released at the store";
  }
}

TEST(LostOnlyWhenLost, AfterItsBeliefRanOutTheHolderMayCallItLost) {
  Story story;
  story.step_ends_lost(kBelief);
  EXPECT_TRUE(story.judged().empty());
}

TEST(LostOnlyWhenLost, OtherEndingsAreNotJudged) {
  Story story;
  story.holder(5 * kSecond, EventKind::kStepEnded, 1, "ok");
  EXPECT_TRUE(story.judged().empty());
  Story outside;
  outside.step_ends_lost(5 * kSecond);
  EXPECT_EQ(outside.judged().size(), 1u);
  RunFacts facts;
  facts.within_assumptions = false;
  EXPECT_TRUE(outside.judged(facts).empty()) << "outside the clock assumptions: not judged";
}

// A checkpoint refused because the tree was cancelled is no word on the token: the store still
// holds the lease, and a step that then ends lease-lost is reported all the same; a checkpoint
// refused for its token is a refusal and silences it (round 30b: the oracle took every refused
// checkpoint for a refusal of the token).
TEST(LostOnlyWhenLost, ACheckpointRefusedAsCancelledIsNoRefusalOfTheToken) {
  Story cancelled;
  cancelled.holder(4 * kSecond, EventKind::kCheckpointRefused, 1, "cancelled");
  cancelled.step_ends_lost(5 * kSecond);
  const std::vector<Violation> found = cancelled.judged();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{0, 3}));
  Story refused;
  refused.holder(4 * kSecond, EventKind::kCheckpointRefused, 1);
  refused.step_ends_lost(5 * kSecond);
  EXPECT_TRUE(refused.judged().empty()) << "a checkpoint refused for its token";
}

// Only a loss handed over from a downstream's refusal (fence.fenced(): kLeaseLost "fenced") is the
// store's word on the token; a loss the holder decided itself excuses nothing, and the step that
// then ends lease-lost while the store holds its lease is reported (round 30b: the oracle took
// every kLeaseLost for a refusal).
TEST(LostOnlyWhenLost, OnlyAFencedLossIsARefusal) {
  Story own;
  own.holder(4 * kSecond, EventKind::kLeaseLost, 1, "local-expiry");
  own.step_ends_lost(5 * kSecond);
  const std::vector<Violation> found = own.judged();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{0, 3}));
  Story fenced;
  fenced.holder(4 * kSecond, EventKind::kLeaseLost, 1, "fenced");
  fenced.step_ends_lost(5 * kSecond);
  EXPECT_TRUE(fenced.judged().empty()) << "a downstream's refusal handed over";
}

// Every report, not only the first: a step and then its pass each end lease-lost while the store
// still holds the lease; both are reported (tools/quiet-oracles.py --sites --first-only: the
// oracle stopped at its first report passed every test above, each of which had one such end).
TEST(LostOnlyWhenLostEveryReport, AStepAndItsPassBothEndedLostWhileHeldAreBothReported) {
  Story story;
  story.step_ends_lost(5 * kSecond);  // 2
  story.holder(6 * kSecond, EventKind::kErrorClassified, 1,
               std::string(runtime::ExecutionLeaseLostError::kCode));  // 3
  const std::vector<Violation> found = story.judged();
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{0, 2}));
  EXPECT_EQ(found[1].events, (std::vector<std::uint64_t>{0, 3}));
}

}  // namespace
}  // namespace fencesim::properties::lost_only_when_lost_test
