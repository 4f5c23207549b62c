// belief-reported-as-read on hand-made histories: a holder's reports of its belief (lease-taken,
// lease-renewed) against what its steps' fences read while the lease was held.
#include <gtest/gtest.h>

#include "properties/invariants_belief_reported.h"
#include "properties/tests/story_event.h"

namespace fencesim::properties::belief_reported_test {
namespace {

using runtime::EventKind;
using runtime::kSecond;

constexpr sim::NodeId kHolder = 2;
constexpr sim::NodeId kOther = 3;
const runtime::LeaseKey kTree{"tenant-1", "order-1"};

class Beliefs {
 public:
  // The holder at `node` reports a belief (`kind`: taken or renewed) of token `token`.
  void reported(std::int64_t at_ns, EventKind kind, runtime::Token token,
                runtime::Nanoseconds until_ns, sim::NodeId node = kHolder) {
    sim::HistoryEvent e =
        testing::next_event(events_, node, sim::WorldEventKind::kRuntime, at_ns);
    e.runtime = runtime::RuntimeEvent{kind, "a", kTree, "tenant-1:order-1", token, "", "",
                                      until_ns};
    events_.push_back(std::move(e));
  }
  // A step body at `node` read its fence of token `token`: the workload's "fence" record.
  void read(std::int64_t at_ns, runtime::Token token, std::string what,
            sim::NodeId node = kHolder) {
    sim::HistoryEvent e =
        testing::next_event(events_, node, sim::WorldEventKind::kObserved, at_ns);
    e.runtime.holder = "fence";
    e.runtime.key = kTree;
    e.runtime.token = token;
    e.runtime.step = "charge";
    e.detail = std::move(what);
    events_.push_back(std::move(e));
  }
  std::vector<Violation> judged() const {
    std::vector<Violation> out;
    check_belief_reported_as_read(events_, out);
    return out;
  }

 private:
  Events events_;
};

TEST(BeliefReportedAsRead, AFenceReadingTheBeliefLastReportedPasses) {
  Beliefs b;
  b.reported(0, EventKind::kLeaseTaken, 1, 29 * kSecond);
  b.read(1 * kSecond, 1, "until 29000000000 held");
  b.reported(10 * kSecond, EventKind::kLeaseRenewed, 1, 39 * kSecond);
  b.read(11 * kSecond, 1, "until 39000000000 held");
  // A lost lease's belief is cut to its loss and never reported as a belief: not judged.
  b.read(12 * kSecond, 1, "until 12000000000 lost execution.lease-lost");
  EXPECT_TRUE(b.judged().empty());
}

TEST(BeliefReportedAsRead, ATakeReportingAnotherBeliefThanItsFenceIsReported) {
  // Red team 31a's bug 2: the take's send time reported as its confirmedUntil.
  Beliefs b;
  b.reported(0, EventKind::kLeaseTaken, 1, 0);
  b.read(1 * kSecond, 1, "until 29000000000 held");
  const std::vector<Violation> out = b.judged();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].invariant, "belief-reported-as-read");
  EXPECT_NE(out[0].message.find("said 0ns"), std::string::npos) << out[0].message;
}

// Either way: a fence that reads a belief short of the one its holder reported (a renewal the
// fence never took in, or a report that ran ahead of the belief) is as wrong as one beyond it.
TEST(BeliefReportedAsRead, AFenceReadingLessThanTheReportedBeliefIsReported) {
  Beliefs b;
  b.reported(0, EventKind::kLeaseTaken, 1, 29 * kSecond);
  b.reported(10 * kSecond, EventKind::kLeaseRenewed, 1, 39 * kSecond);
  b.read(11 * kSecond, 1, "until 29000000000 held");
  const std::vector<Violation> out = b.judged();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NE(out[0].message.find("confirmedUntil 29000000000ns"), std::string::npos)
      << out[0].message;
  EXPECT_NE(out[0].message.find("said 39000000000ns"), std::string::npos) << out[0].message;
}

TEST(BeliefReportedAsRead, AFenceHeldUnderATokenNeverReportedAtItsNodeIsReported) {
  Beliefs b;
  b.reported(0, EventKind::kLeaseTaken, 1, 29 * kSecond, kOther);  // another node's report
  b.read(1 * kSecond, 1, "until 29000000000 held");
  b.read(2 * kSecond, 2, "until 31000000000 held");  // token 2: never reported at all
  const std::vector<Violation> out = b.judged();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_NE(out[0].message.find("no take or renewal"), std::string::npos) << out[0].message;
}

TEST(BeliefReportedAsReadEveryReport, TwoReadsOfAnUnreportedRenewalAreBothReported) {
  // The renewal moved the belief to 39 s but its report still said the take's 29 s.
  Beliefs b;
  b.reported(0, EventKind::kLeaseTaken, 1, 29 * kSecond);
  b.reported(10 * kSecond, EventKind::kLeaseRenewed, 1, 29 * kSecond);
  b.read(11 * kSecond, 1, "until 39000000000 held");
  b.read(12 * kSecond, 1, "until 39000000000 held");
  EXPECT_EQ(b.judged().size(), 2u);
}

}  // namespace
}  // namespace fencesim::properties::belief_reported_test
