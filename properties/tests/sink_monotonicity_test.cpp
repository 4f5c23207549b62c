// sink-monotonicity on hand-made histories: per (sink, scope key), a token accepted after a
// higher one was accepted is a stale write that got through. The invariant judges against the
// highest token accepted so far, not the first: accepting 1, 3, then 2 is a violation.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "properties/invariants_builtin.h"
#include "properties/tests/story_event.h"
#include "sim/world.h"

namespace fencesim::properties::sink_monotonicity_test {
namespace {

using runtime::EventKind;

constexpr sim::NodeId kSink = 2;

class Accepts {
 public:
  Accepts() : world_(sim::WorldOptions{}) {}
  std::uint64_t accept(runtime::Token token, const std::string& scope = "tenant-1:order-1",
                       EventKind kind = EventKind::kSinkApplied) {
    const Events& events = world_.history().events();
    sim::HistoryEvent e = testing::next_event(events, kSink, sim::WorldEventKind::kRuntime,
                                              static_cast<std::int64_t>(events.size()));
    e.runtime.kind = kind;
    e.runtime.holder = "payments";
    e.runtime.scope_key = scope;
    e.runtime.token = token;
    const std::uint64_t index = e.index;
    world_.adopt_event(std::move(e));
    return index;
  }
  std::vector<Violation> check() const {
    std::vector<Violation> found;
    SinkMonotonicity{}.check(world_, found);
    return found;
  }

 private:
  sim::World world_;
};

TEST(SinkMonotonicity, ATokenBelowTheHighestAcceptedIsReported) {
  Accepts a;
  a.accept(1);
  const std::uint64_t highest = a.accept(3);
  const std::uint64_t stale = a.accept(2);
  const std::vector<Violation> found = a.check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found.front().invariant, "sink-monotonicity");
  EXPECT_EQ(found.front().events, (std::vector<std::uint64_t>{highest, stale}));
}

TEST(SinkMonotonicity, TokensThatNeverGoBackPassPerScopeKey) {
  Accepts a;
  a.accept(1);
  a.accept(2);
  a.accept(2, "tenant-1:order-1", EventKind::kSinkDeduplicated);  // an equal token is accepted
  a.accept(3);
  a.accept(1, "tenant-1:order-2");  // another scope key has its own tokens
  EXPECT_TRUE(a.check().empty());
}

// The highest token stays the highest: a stale acceptance reported does not lower it, so every
// later token below it is reported too, against it, and the oracle goes on past its first report.
TEST(SinkMonotonicity, EveryTokenBelowTheHighestIsReportedNotOnlyTheFirst) {
  Accepts a;
  a.accept(1);
  const std::uint64_t highest = a.accept(3);
  const std::uint64_t stale = a.accept(2);
  const std::uint64_t again = a.accept(2, "tenant-1:order-1", EventKind::kSinkDeduplicated);
  a.accept(1, "tenant-1:order-2");
  const std::uint64_t other = a.accept(5, "tenant-1:order-2");
  const std::uint64_t older = a.accept(4, "tenant-1:order-2");
  const std::vector<Violation> found = a.check();
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{highest, stale}));
  EXPECT_EQ(found[1].events, (std::vector<std::uint64_t>{highest, again}));
  EXPECT_EQ(found[2].events, (std::vector<std::uint64_t>{other, older}));
}

}  // namespace
}  // namespace fencesim::properties::sink_monotonicity_test
