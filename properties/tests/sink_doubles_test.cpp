// The broken sinks that prove the harness bites (properties/sink_doubles.h), each shown to be
// broken the way it says: a double that quietly became a correct sink would make every test that
// runs a scenario against it prove nothing (red team 32b: NonAtomicSink raising its high-water
// mark at the check, so that a stale token's write could no longer land after a newer one's,
// passed every test; the runs against it still failed, by the duplicate effect alone).
#include <gtest/gtest.h>

#include <vector>

#include "properties/sink_doubles.h"

namespace fencesim::properties::sink_doubles_test {
namespace {

using runtime::EventKind;
using runtime::SinkOutcome;

class Recorded final : public runtime::Observer {
 public:
  void on_event(const runtime::RuntimeEvent& event) override { events.push_back(event); }
  std::vector<runtime::RuntimeEvent> events;
};

runtime::SinkWrite write(runtime::Token token, std::string key) {
  return runtime::SinkWrite{"scope", token, std::move(key), "payload"};
}

TEST(NonAtomicSink, AStaleTokenCheckedBeforeANewerWriteLandsIsAppliedAfterIt) {
  sim::Scheduler scheduler({.seed = 1});
  Recorded recorded;
  NonAtomicSink sink("payments", recorded, scheduler, 100);
  // Token 2 is checked first; token 1 is checked before token 2's write lands: the mark it reads
  // is still the old one, so both pass, and the stale write lands last.
  scheduler.at(10, [&] { EXPECT_EQ(sink.write(write(2, "new")).outcome, SinkOutcome::kApplied); });
  scheduler.at(20, [&] { EXPECT_EQ(sink.write(write(1, "old")).outcome, SinkOutcome::kApplied); });
  scheduler.run();
  ASSERT_EQ(recorded.events.size(), 2u);
  EXPECT_EQ(recorded.events[0].kind, EventKind::kSinkApplied);
  EXPECT_EQ(recorded.events[0].token, 2u);
  EXPECT_EQ(recorded.events[1].kind, EventKind::kSinkApplied);
  EXPECT_EQ(recorded.events[1].token, 1u);  // after the newer token: the double's point
  // Once both landed, the mark is the last write's, and a token below it is refused.
  EXPECT_EQ(sink.write(write(0, "older")).outcome, SinkOutcome::kRefused);
}

TEST(NonAtomicSink, AnEffectCheckedTwiceBeforeItLandsIsAppliedTwice) {
  sim::Scheduler scheduler({.seed = 1});
  Recorded recorded;
  NonAtomicSink sink("payments", recorded, scheduler, 100);
  scheduler.at(10, [&] { sink.write(write(1, "charge")); });
  scheduler.at(20, [&] { sink.write(write(2, "charge")); });
  scheduler.run();
  ASSERT_EQ(recorded.events.size(), 2u);
  EXPECT_EQ(recorded.events[0].kind, EventKind::kSinkApplied);
  EXPECT_EQ(recorded.events[1].kind, EventKind::kSinkApplied);
  // After it landed, the same effect is deduplicated.
  EXPECT_EQ(sink.write(write(2, "charge")).outcome, SinkOutcome::kDeduplicated);
}

TEST(StaleAcceptingSink, AStaleTokensWriteIsAppliedAfterANewerOne) {
  Recorded recorded;
  StaleAcceptingSink sink("payments", recorded);
  EXPECT_EQ(sink.write(write(2, "new")).outcome, SinkOutcome::kApplied);
  EXPECT_EQ(sink.write(write(1, "old")).outcome, SinkOutcome::kApplied);
  EXPECT_EQ(sink.write(write(1, "old")).outcome, SinkOutcome::kDeduplicated);
}

}  // namespace
}  // namespace fencesim::properties::sink_doubles_test
