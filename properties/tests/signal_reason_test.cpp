// The signal-reason-kept oracle (invariants_signal_reason.h) on hand-made histories of the bodies'
// reads of their lease's signal (scenarios::look_at_signal_reason): a reason replaced by a later
// abort (red team 31a's bug 32: the release after a cancel), or an aborted signal read live again,
// is reported, every such read; a reason read again and again, reads of another lease's signal,
// and reads without a lease pass.
#include <gtest/gtest.h>

#include "properties/invariants_signal_reason.h"
#include "properties/tests/reports_of.h"
#include "properties/tests/story_event.h"

namespace fencesim::properties::signal_reason_test {
namespace {

constexpr sim::NodeId kInstance = 2;
constexpr sim::NodeId kOther = 3;
const runtime::LeaseKey kTree{"tenant-1", "order-1"};
constexpr std::string_view kCancelled = "execution.cancelled";
constexpr std::string_view kLost = "execution.lease-lost";

class Story {
 public:
  std::uint64_t read(runtime::Token token, std::string_view seen, sim::NodeId node = kInstance,
                     const runtime::LeaseKey& key = kTree) {
    sim::HistoryEvent e =
        testing::next_event(events_, node, sim::WorldEventKind::kObserved, ++now_);
    e.local_monotonic_ns = now_ + 1'000'000;  // the holder's clock is not true time
    e.runtime.holder = "signal-reason";
    e.runtime.key = key;
    e.runtime.token = token;
    e.detail = std::string(seen);
    events_.push_back(std::move(e));
    return events_.back().index;
  }
  std::vector<Violation> check() const {
    std::vector<Violation> out;
    check_signal_reason_kept(events_, out);
    return out;
  }

 private:
  Events events_;
  std::int64_t now_ = 0;
};

TEST(SignalReasonKept, AReasonReplacedByALaterAbortIsReportedAtEveryRead) {
  Story s;
  s.read(1, "live");
  const std::uint64_t first = s.read(1, kCancelled);
  s.read(1, kCancelled);
  const std::uint64_t replaced = s.read(1, kLost);  // the release's abort took its place
  const std::uint64_t again = s.read(1, kLost);
  const std::vector<Violation> found = s.check();
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].invariant, "signal-reason-kept");
  EXPECT_EQ(testing::events_of(found), (testing::Reports{{first, replaced}, {first, again}}));
  EXPECT_NE(found[0].message.find("read 'execution.lease-lost'"), std::string::npos)
      << found[0].message;
  EXPECT_NE(found[0].message.find("aborted with 'execution.cancelled'"), std::string::npos)
      << found[0].message;
  // The read's true time, as the message says (red team 41a-34 printed the holder's clock).
  EXPECT_NE(found[0].message.find("at true time 4 ns"), std::string::npos) << found[0].message;
}

TEST(SignalReasonKept, AnAbortedSignalReadLiveAgainIsReported) {
  Story s;
  const std::uint64_t first = s.read(1, kLost);
  const std::uint64_t live = s.read(1, "live");
  EXPECT_EQ(testing::events_of(s.check()), (testing::Reports{{first, live}}));
}

TEST(SignalReasonKept, AKeptReasonAndOtherSignalsPass) {
  Story s;
  s.read(1, "live");
  s.read(1, "live");
  s.read(1, kCancelled);
  s.read(1, kCancelled);
  s.read(2, kLost);          // the next lease's signal: its own
  s.read(1, kLost, kOther);  // another node's lease of token 1
  s.read(1, kLost, kInstance, runtime::LeaseKey{"tenant-1", "order-2"});  // another tree
  s.read(runtime::kTokenNone, kCancelled);                                // no lease: not judged
  s.read(runtime::kTokenNone, kLost);
  s.read(1, kCancelled);
  EXPECT_TRUE(s.check().empty());
}

}  // namespace
}  // namespace fencesim::properties::signal_reason_test
