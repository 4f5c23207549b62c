// scope-key-injective on a scope key seen alone (a sink's, a placed child's, a write's at the
// sink): it must be a lease key's two parts, each encoded, joined by ':'. A key whose parts
// decode but number one or three is no lease key's: a sink keyed by "tenant-1" alone keeps one
// high-water mark for every tree of the tenant, and one keyed by three parts names no tree. The
// report of a wrong count of parts was reached by no test (tools/quiet-oracles.py --sites found
// it quiet): only a key that does not decode was. Judged through the oracle's check of a world.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "properties/invariants_builtin.h"
#include "properties/tests/story_event.h"
#include "properties/tests/world_of.h"

namespace fencesim::properties::scope_key_parts_test {
namespace {

using runtime::EventKind;

constexpr sim::NodeId kSink = 3;

class Story {
 public:
  // A sink's own event: it knows only the scope key.
  std::uint64_t sink(EventKind kind, const std::string& scope_key) {
    sim::HistoryEvent e = testing::next_event(events_, kSink, sim::WorldEventKind::kRuntime, now());
    e.runtime.kind = kind;
    e.runtime.holder = "payments";
    e.runtime.scope_key = scope_key;
    e.runtime.token = 1;
    return add(std::move(e));
  }
  // A write the sink handled, as the simulator recorded it.
  std::uint64_t write(const std::string& scope_key) {
    sim::HistoryEvent e = testing::next_event(events_, kSink, sim::WorldEventKind::kStoreCall, now());
    sim::StoreCall call;
    call.op = sim::StoreOp::kWrite;
    call.store = "payments";
    call.scope_key = scope_key;
    call.token = 1;
    call.outcome = "applied";
    e.store = std::make_shared<const sim::StoreCall>(std::move(call));
    return add(std::move(e));
  }
  // A holder placing a child tree, its scope key in the event's detail.
  std::uint64_t child_placed(const std::string& child_scope_key) {
    sim::HistoryEvent e = testing::next_event(events_, 1, sim::WorldEventKind::kRuntime, now());
    e.runtime.kind = EventKind::kChildPlaced;
    e.runtime.holder = "instance-1";
    e.runtime.detail = child_scope_key;
    return add(std::move(e));
  }
  std::vector<Violation> judged() const {
    return testing::judged_in_world(ScopeKeyInjective{}, events_);
  }

 private:
  std::int64_t now() const { return static_cast<std::int64_t>(events_.size()) * 1000; }
  std::uint64_t add(sim::HistoryEvent e) {
    events_.push_back(std::move(e));
    return events_.back().index;
  }
  Events events_;
};

std::string all(const std::vector<Violation>& found) {
  std::string out;
  for (const Violation& v : found) out += v.invariant + ": " + v.message + "\n";
  return out;
}

TEST(ScopeKeyParts, AWellFormedKeyOfTwoPartsPasses) {
  Story s;
  s.sink(EventKind::kSinkApplied, "tenant-1:order-1");
  s.write("tenant-1:order-1%2Fchildren%2Finvoice");
  s.child_placed("tenant-1:order-1%2Fchildren%2Finvoice");
  EXPECT_TRUE(s.judged().empty()) << all(s.judged());
}

TEST(ScopeKeyParts, ASinksScopeKeyOfOnePartIsReported) {
  Story s;
  const std::uint64_t bad = s.sink(EventKind::kSinkApplied, "tenant-1");
  const std::vector<Violation> found = s.judged();
  ASSERT_EQ(found.size(), 1u) << all(found);
  EXPECT_EQ(found[0].invariant, ScopeKeyInjective{}.name());
  EXPECT_EQ(found[0].events, std::vector<std::uint64_t>{bad});
}

TEST(ScopeKeyParts, EachMalformedKeyIsReportedOnceWhereverItIsSeen) {
  Story s;
  const std::uint64_t three = s.write("tenant-1:order-1:extra");
  s.sink(EventKind::kSinkApplied, "tenant-1:order-1:extra");  // the same key: judged once
  s.sink(EventKind::kSinkApplied, "tenant-1:order-1");
  const std::uint64_t child = s.child_placed("order-1%2Fchildren%2Finvoice");
  const std::uint64_t undecodable = s.sink(EventKind::kSinkRefused, "tenant-1:order%ZZ");
  const std::vector<Violation> found = s.judged();
  ASSERT_EQ(found.size(), 3u) << all(found);
  EXPECT_EQ(found[0].events, std::vector<std::uint64_t>{three});
  EXPECT_EQ(found[1].events, std::vector<std::uint64_t>{child});
  EXPECT_EQ(found[2].events, std::vector<std::uint64_t>{undecodable});
}

}  // namespace
}  // namespace fencesim::properties::scope_key_parts_test
