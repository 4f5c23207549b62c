// The oracle of a loss reported after its cause (invariants_loss_cause.h) on hand-made histories:
// a lease-lost naming a refused renewal (or checkpoint) reported before the refusal reached the
// holder is reported (red team 31a, bug 36: kLeaseLost emitted before its kRenewRefused passed
// every other oracle); the refusal first, then the loss, passes.
#include <gtest/gtest.h>

#include "properties/invariants_loss_cause.h"
#include "properties/tests/reports_of.h"
#include "properties/tests/holder_story.h"

namespace fencesim::properties::loss_cause_test {
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
    check_loss_after_its_cause(events(), out);
    return out;
  }
};

TEST(LossAfterItsCause, ALossAfterItsRefusalPasses) {
  Story s;
  s.at(0, EventKind::kLeaseTaken, 1);
  s.at(1, EventKind::kRenewSent, 1);
  s.at(2, EventKind::kRenewRefused, 1, "expired");
  s.at(2, EventKind::kLeaseLost, 1, "renew-refused:expired");
  s.at(3, EventKind::kLeaseTaken, 2);
  s.at(4, EventKind::kCheckpointRefused, 2);
  s.at(4, EventKind::kLeaseLost, 2, "checkpoint-refused");
  // Losses that name no store's refusal need none.
  s.at(5, EventKind::kLeaseTaken, 3);
  s.at(6, EventKind::kLeaseLost, 3, "local-expiry");
  s.at(7, EventKind::kLeaseTaken, 4);
  s.at(8, EventKind::kLeaseLost, 4, "fenced");
  EXPECT_TRUE(s.check().empty());
}

TEST(LossAfterItsCause, ALossReportedBeforeItsRefusedRenewalIsReported) {
  Story s;
  s.at(0, EventKind::kLeaseTaken, 1);
  s.at(1, EventKind::kRenewSent, 1);
  const std::uint64_t lost = s.at(2, EventKind::kLeaseLost, 1, "renew-refused:stale");
  s.at(2, EventKind::kRenewRefused, 1, "stale");
  const std::vector<Violation> found = s.check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].invariant, "loss-after-its-cause");
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{lost}));
}

TEST(LossAfterItsCause, TheRefusalMustBeOfTheSameHolderKeyTokenAndReason) {
  Story s;
  s.at(0, EventKind::kRenewRefused, 1, "stale", kOtherTree);      // another tree's
  s.at(0, EventKind::kRenewRefused, 1, "stale", kTree, "other");  // another holder's
  s.at(0, EventKind::kRenewRefused, 2, "stale");                  // another token's
  s.at(0, EventKind::kRenewRefused, 1, "expired");                // another reason
  s.at(0, EventKind::kCheckpointRefused, 2);                      // another token's checkpoint
  const std::uint64_t renew = s.at(1, EventKind::kLeaseLost, 1, "renew-refused:stale");
  const std::uint64_t checkpoint = s.at(1, EventKind::kLeaseLost, 3, "checkpoint-refused");
  EXPECT_EQ(events_of(s.check()), (Reports{{renew}, {checkpoint}}));
}

// Two tokens, each reported lost before the refusal that lost it: both are reported.
TEST(LossAfterItsCauseEveryReport, TwoLossesBeforeTheirRefusalsAreBothReported) {
  Story s;
  s.at(0, EventKind::kLeaseTaken, 1);                           // 0
  s.at(1, EventKind::kLeaseLost, 1, "renew-refused:expired");   // 1
  s.at(1, EventKind::kRenewRefused, 1, "expired");              // 2
  s.at(2, EventKind::kLeaseTaken, 2);                           // 3
  s.at(3, EventKind::kLeaseLost, 2, "renew-refused:released");  // 4
  s.at(3, EventKind::kRenewRefused, 2, "released");             // 5
  EXPECT_EQ(events_of(s.check()), (Reports{{1}, {4}}));
}

}  // namespace
}  // namespace fencesim::properties::loss_cause_test
