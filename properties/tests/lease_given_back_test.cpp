// ended-pass-gives-back-its-lease on hand-made histories: a pass that ends keeps no lease. Its
// holder reports the pass's lease released (at the end, or earlier by a yield the retake could not
// undo) or lost; a pass whose process died after its end is not judged. Red team 41c-18: a pass
// that completed its tree kept its lease and renewed it for as long as the process lived.
#include <gtest/gtest.h>

#include "properties/invariants_lease_given_back.h"
#include "properties/tests/reports_of.h"
#include "properties/tests/story_event.h"

namespace fencesim::properties::lease_given_back_test {
namespace {

using runtime::EventKind;

constexpr sim::NodeId kInstance = 2;
const runtime::LeaseKey kTree{"tenant-1", "order-1"};

class Story {
 public:
  std::uint64_t report(EventKind kind, runtime::Token token, std::string holder = "instance-1",
                       sim::NodeId node = kInstance) {
    sim::HistoryEvent e =
        testing::next_event(events_, node, sim::WorldEventKind::kRuntime, ++now_);
    e.runtime.kind = kind;
    e.runtime.holder = std::move(holder);
    e.runtime.key = kTree;
    e.runtime.token = token;
    events_.push_back(std::move(e));
    return events_.back().index;
  }
  std::uint64_t crash(sim::NodeId node = kInstance) {
    events_.push_back(testing::next_event(events_, node, sim::WorldEventKind::kNodeCrashed, ++now_));
    return events_.back().index;
  }
  std::vector<Violation> check() const {
    std::vector<Violation> out;
    check_ended_pass_gives_back_its_lease(events_, out);
    return out;
  }

 private:
  Events events_;
  std::int64_t now_ = 0;
};

}  // namespace

TEST(EndedPassGivesBackItsLease, PassesThatGaveTheirLeaseBackOrLostItPass) {
  Story s;
  s.report(EventKind::kTreeStarted, 1);
  s.report(EventKind::kTreeCompleted, 1);
  s.report(EventKind::kLeaseReleased, 1);
  // Lost before the pass ended, then abandoned.
  s.report(EventKind::kTreeStarted, 2);
  s.report(EventKind::kLeaseLost, 2);
  s.report(EventKind::kTreeAbandoned, 2);
  // Yielded, the retake refused: the pass ends under the token it gave back.
  s.report(EventKind::kTreeStarted, 3);
  s.report(EventKind::kLeaseReleased, 3);
  s.report(EventKind::kTakeRefused, 3);
  s.report(EventKind::kTreeAbandoned, 3);
  // Cancelled, then given back.
  s.report(EventKind::kTreeStarted, 5);
  s.report(EventKind::kTreeCancelled, 5);
  s.report(EventKind::kLeaseReleased, 5);
  EXPECT_TRUE(s.check().empty());
}

TEST(EndedPassGivesBackItsLease, ACompletedPassThatKeepsItsLeaseIsReported) {
  Story s;
  s.report(EventKind::kTreeStarted, 1);
  const std::uint64_t completed = s.report(EventKind::kTreeCompleted, 1);
  s.report(EventKind::kRenewSent, 1);  // renewed on, for as long as the process lives
  s.report(EventKind::kLeaseRenewed, 1);
  const std::vector<Violation> found = s.check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].invariant, "ended-pass-gives-back-its-lease");
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{completed}));
  EXPECT_NE(found[0].message.find("ended (tree-completed) under token 1"), std::string::npos)
      << found[0].message;
}

TEST(EndedPassGivesBackItsLease, AnotherTokensOrHoldersReleaseIsNotThePasss) {
  Story s;
  s.report(EventKind::kTreeStarted, 2);
  const std::uint64_t ended = s.report(EventKind::kTreeAbandoned, 2);
  s.report(EventKind::kLeaseReleased, 1);                 // an earlier token's
  s.report(EventKind::kLeaseReleased, 2, "instance-2");  // another holder's
  const std::vector<Violation> found = s.check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{ended}));
}

TEST(EndedPassGivesBackItsLease, AProcessThatDiedAfterThePassEndedIsNotJudged) {
  Story s;
  s.report(EventKind::kTreeStarted, 1);
  s.report(EventKind::kTreeCompleted, 1);
  s.crash();
  EXPECT_TRUE(s.check().empty());
  // A crash of another node, or one before the end, excuses nothing.
  Story t;
  t.crash();
  t.report(EventKind::kTreeStarted, 1);
  const std::uint64_t ended = t.report(EventKind::kTreeCompleted, 1);
  t.crash(kInstance + 1);
  const std::vector<Violation> found = t.check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{ended}));
}

TEST(EndedPassGivesBackItsLeaseEveryReport, EveryPassThatKeptItsLeaseIsReported) {
  Story s;
  const std::uint64_t a = s.report(EventKind::kTreeCompleted, 1);
  const std::uint64_t b = s.report(EventKind::kTreeCancelled, 2);
  EXPECT_EQ(testing::events_of(s.check()), (testing::Reports{{a}, {b}}));
}

}  // namespace fencesim::properties::lease_given_back_test
