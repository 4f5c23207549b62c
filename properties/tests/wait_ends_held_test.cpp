// The oracle of a remote-children wait's end (invariants_wait_ends_held.h) on hand-made
// histories: a wait reported ended while the tree's lease was still given back, or in a pass whose
// retake was refused, is reported (red team 31a, bug 33: kRemoteWaitEnded emitted before the
// retake passed every other oracle); the wait ended after the retake passes.
#include <gtest/gtest.h>

#include "properties/invariants_wait_ends_held.h"
#include "properties/tests/reports_of.h"
#include "properties/tests/holder_story.h"

namespace fencesim::properties::wait_ends_held_test {
namespace {

using runtime::EventKind;
using runtime::kSecond;
using testing::events_of;
using testing::Reports;

const runtime::LeaseKey kTree{"tenant-1", "order-1"};
const runtime::LeaseKey kOtherTree{"tenant-1", "order-2"};

class Story : public testing::HolderStory {
 public:
  std::vector<Violation> check() const {
    std::vector<Violation> out;
    check_remote_wait_ends_held(events(), out);
    return out;
  }
};

TEST(RemoteWaitEndsHeld, AWaitEndedAfterTheRetakePasses) {
  Story s;
  s.at(0, EventKind::kLeaseTaken, 1);
  s.at(0, EventKind::kTreeStarted, 1, "order");
  s.at(1, EventKind::kRemoteWaitBegan, 1);
  s.at(1, EventKind::kLeaseReleased, 1);  // the yield
  s.at(5, EventKind::kTakeSent, 0);
  s.at(5, EventKind::kTakeRefused, 1);  // its own release not yet landed: takes again
  s.at(6, EventKind::kLeaseTaken, 2);
  s.at(6, EventKind::kRemoteWaitEnded, 2);
  // A wait that never yielded ends under the token it began with.
  s.at(7, EventKind::kRemoteWaitBegan, 2);
  s.at(8, EventKind::kRemoteWaitEnded, 2);
  s.at(9, EventKind::kTreeCompleted, 2);
  s.at(9, EventKind::kLeaseReleased, 2);
  EXPECT_TRUE(s.check().empty());
}

TEST(RemoteWaitEndsHeld, AWaitEndedBeforeTheRetakeIsReported) {
  Story s;
  s.at(0, EventKind::kLeaseTaken, 1);
  s.at(1, EventKind::kRemoteWaitBegan, 1);
  const std::uint64_t yielded = s.at(1, EventKind::kLeaseReleased, 1);
  const std::uint64_t ended = s.at(5, EventKind::kRemoteWaitEnded, 1);
  s.at(5, EventKind::kLeaseTaken, 2);
  const std::vector<Violation> found = s.check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].invariant, "remote-wait-ends-held");
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{yielded, ended}));
  // The report says what became of the token (red team 41a-32 swapped the two words).
  EXPECT_NE(found[0].message.find("after it released (yielded) that token"), std::string::npos)
      << found[0].message;
}

TEST(RemoteWaitEndsHeld, AWaitEndedInAPassWhoseRetakeWasRefusedIsReported) {
  Story s;
  s.at(0, EventKind::kLeaseTaken, 1);
  s.at(1, EventKind::kRemoteWaitBegan, 1);
  const std::uint64_t yielded = s.at(1, EventKind::kLeaseReleased, 1);
  const std::uint64_t ended = s.at(5, EventKind::kRemoteWaitEnded, 1);
  s.at(5, EventKind::kTakeRefused, 2);  // another instance took the tree
  s.at(5, EventKind::kErrorClassified, 1, "execution.lease-lost");
  EXPECT_EQ(events_of(s.check()), (Reports{{yielded, ended}}));
}

TEST(RemoteWaitEndsHeld, AWaitEndedAfterTheLeaseWasLostIsReported) {
  Story s;
  s.at(0, EventKind::kLeaseTaken, 1);
  s.at(1, EventKind::kRemoteWaitBegan, 1);
  const std::uint64_t lost = s.at(2, EventKind::kLeaseLost, 1, "local-expiry");
  const std::uint64_t ended = s.at(3, EventKind::kRemoteWaitEnded, 1);
  const std::vector<Violation> found = s.check();
  EXPECT_EQ(events_of(found), (Reports{{lost, ended}}));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].message.find("after it lost that token"), std::string::npos)
      << found[0].message;
}

TEST(RemoteWaitEndsHeld, AWaitEndedUnderATokenNeverTakenIsReported) {
  Story s;
  s.at(0, EventKind::kLeaseTaken, 1);
  const std::uint64_t ended = s.at(3, EventKind::kRemoteWaitEnded, 2);
  EXPECT_EQ(events_of(s.check()), (Reports{{ended}}));
}

TEST(RemoteWaitEndsHeld, OnlyTheHoldersOwnTokenOfTheTreeCounts) {
  // Another holder's yield of the tree, and this holder's yield of another tree, leave this
  // holder's lease of the tree held.
  Story s;
  s.at(0, EventKind::kLeaseTaken, 1);
  s.at(0, EventKind::kLeaseTaken, 1, {}, kOtherTree);
  s.at(1, EventKind::kLeaseReleased, 1, {}, kOtherTree);
  s.at(2, EventKind::kLeaseTaken, 7, {}, kTree, "other");
  s.at(3, EventKind::kLeaseReleased, 7, {}, kTree, "other");
  s.at(4, EventKind::kRemoteWaitEnded, 1);
  EXPECT_TRUE(s.check().empty());
}

// Two yields, each reported ended before its retake: both are reported, with their events.
TEST(RemoteWaitEndsHeldEveryReport, TwoWaitsEndedBeforeTheirRetakesAreBothReported) {
  Story s;
  s.at(0, EventKind::kLeaseTaken, 1);       // 0
  s.at(1, EventKind::kRemoteWaitBegan, 1);  // 1
  s.at(1, EventKind::kLeaseReleased, 1);    // 2
  s.at(2, EventKind::kRemoteWaitEnded, 1);  // 3
  s.at(2, EventKind::kLeaseTaken, 2);       // 4
  s.at(3, EventKind::kRemoteWaitBegan, 2);  // 5
  s.at(3, EventKind::kLeaseReleased, 2);    // 6
  s.at(4, EventKind::kRemoteWaitEnded, 2);  // 7
  s.at(4, EventKind::kTakeRefused, 3);      // 8
  EXPECT_EQ(events_of(s.check()), (Reports{{2, 3}, {6, 7}}));
}

}  // namespace
}  // namespace fencesim::properties::wait_ends_held_test
