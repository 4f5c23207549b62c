// How a tree's passes are counted since the heal (sim/tree_passes.h): the count names a liveness
// failure ("passes repeat" against "one pass began"), so a pass missed at the heal's edge, or one
// counted from before it, names a stuck tree the wrong way and the shrinker keeps the wrong runs.
#include "sim/tree_passes.h"

#include <gtest/gtest.h>

#include "sim/history.h"

namespace fencesim::sim {
namespace {

const runtime::LeaseKey kTree{"tenant-1", "order-1"};
const runtime::LeaseKey kOther{"tenant-1", "order-2"};

class Story {
 public:
  Story& quiet() {
    HistoryEvent e = next(WorldEventKind::kPhase);
    e.detail = "quiet";
    events_.push_back(std::move(e));
    return *this;
  }
  Story& runtime(runtime::EventKind kind, const runtime::LeaseKey& key = kTree,
                 const std::string& detail = "") {
    HistoryEvent e = next(WorldEventKind::kRuntime);
    e.runtime.kind = kind;
    e.runtime.key = key;
    e.runtime.detail = detail;
    events_.push_back(std::move(e));
    return *this;
  }
  Story& world(WorldEventKind kind, const std::string& detail) {
    HistoryEvent e = next(kind);
    e.detail = detail;
    events_.push_back(std::move(e));
    return *this;
  }
  TreePasses passes(const runtime::LeaseKey& key = kTree) const {
    return tree_passes(events_, key);
  }

 private:
  HistoryEvent next(WorldEventKind kind) const {
    HistoryEvent e;
    e.index = events_.size();
    e.time_ns = static_cast<std::int64_t>(events_.size());
    e.node = 1;
    e.world = kind;
    return e;
  }
  std::vector<HistoryEvent> events_;
};

using runtime::EventKind;

TEST(TreePasses, APassStartedRightAfterTheHealsMarkerCounts) {
  Story s;
  s.runtime(EventKind::kTreeStarted).quiet().runtime(EventKind::kTreeStarted);
  const TreePasses passes = s.passes();
  EXPECT_TRUE(passes.since_heal);
  EXPECT_EQ(passes.started, 1) << "the pass before the heal is not counted, the one right after is";
}

TEST(TreePasses, WithoutAHealTheWholeRunCounts) {
  Story s;
  s.runtime(EventKind::kTreeStarted)
      .runtime(EventKind::kTreeAbandoned, kTree, "store")
      .runtime(EventKind::kTreeStarted);
  const TreePasses passes = s.passes();
  EXPECT_FALSE(passes.since_heal);
  EXPECT_EQ(passes.started, 2) << "the very first event of the run counts too";
  EXPECT_EQ(passes.given_up, (std::set<std::string>{"store"}));
}

TEST(TreePasses, CountedFromTheLastMarkerForThisTreeOnly) {
  Story s;
  s.quiet().runtime(EventKind::kTreeStarted).runtime(EventKind::kTreeAbandoned, kTree, "early");
  s.world(WorldEventKind::kPhase, "safety").quiet();
  s.runtime(EventKind::kTreeStarted).runtime(EventKind::kTreeStarted, kOther);
  s.runtime(EventKind::kTreeAbandoned, kTree, "execution.lease-lost");
  s.runtime(EventKind::kTreeAbandoned, kOther, "other");
  s.runtime(EventKind::kTreeStarted)
      .runtime(EventKind::kTreeAbandoned, kTree, "execution.lease-lost");
  const TreePasses passes = s.passes();
  EXPECT_TRUE(passes.since_heal);
  EXPECT_EQ(passes.started, 2);
  EXPECT_EQ(passes.given_up, (std::set<std::string>{"execution.lease-lost"}));
  EXPECT_EQ(s.passes(kOther).started, 1);
}

TEST(TreePasses, APhaseMarkerOfAnotherNameIsNoHeal) {
  Story s;
  s.runtime(EventKind::kTreeStarted).world(WorldEventKind::kPhase, "safety");
  s.world(WorldEventKind::kMark, "quiet").runtime(EventKind::kTreeStarted);
  const TreePasses passes = s.passes();
  EXPECT_FALSE(passes.since_heal);
  EXPECT_EQ(passes.started, 2);
}

}  // namespace
}  // namespace fencesim::sim
