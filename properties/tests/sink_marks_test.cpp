// The sink's marks (properties/mark_rules.cpp, SinkMarks) on hand-made histories: what a sink
// refused, deduplicated, and "independent-epochs" (two scope keys of one tenant accepted at one
// sink under different tokens) are reached from the sink's own verdicts only, never from what a
// holder sent: a write sent under another token proves nothing about the sink's high-water marks.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "properties/mark_rules.h"
#include "properties/tests/story_event.h"

namespace fencesim::properties::sink_marks_test {
namespace {

using runtime::EventKind;

class Story {
 public:
  Story() : world_(sim::WorldOptions{}), rules_(make_mark_rules(world_)) {}
  void event(EventKind kind, const std::string& scope_key, runtime::Token token) {
    sim::HistoryEvent e = testing::next_event(events_, 1, sim::WorldEventKind::kRuntime,
                                              static_cast<std::int64_t>(events_.size()));
    e.runtime.kind = kind;
    e.runtime.holder = "payments";
    e.runtime.key = runtime::LeaseKey{"tenant-1", scope_key};
    e.runtime.scope_key = scope_key;
    e.runtime.token = token;
    events_.push_back(e);
    for (const auto& rule : rules_) {
      rule->observe(e, [this](std::string_view mark) { ++reached_[std::string(mark)]; });
    }
  }
  std::uint64_t reached(const std::string& mark) const {
    auto it = reached_.find(mark);
    return it == reached_.end() ? 0 : it->second;
  }

 private:
  sim::World world_;
  std::vector<std::unique_ptr<MarkRule>> rules_;
  Events events_;
  std::map<std::string, std::uint64_t> reached_;
};

TEST(SinkMarks, TwoScopeKeysOfATenantAcceptedUnderDifferentTokensAreIndependentEpochs) {
  Story story;
  story.event(EventKind::kSinkApplied, "tenant-1:order-1", 3);
  EXPECT_EQ(story.reached("independent-epochs"), 0u);
  story.event(EventKind::kSinkApplied, "tenant-1:order-1|child", 1);
  EXPECT_EQ(story.reached("independent-epochs"), 1u);
  story.event(EventKind::kSinkDeduplicated, "tenant-1:order-1|child", 1);
  EXPECT_EQ(story.reached("independent-epochs"), 2u);
  EXPECT_EQ(story.reached("rerun-deduplicated"), 1u);
}

TEST(SinkMarks, WhatAHolderSentOrTheSinkRefusedIsNoAcceptedEpoch) {
  Story story;
  story.event(EventKind::kSinkApplied, "tenant-1:order-1", 3);
  story.event(EventKind::kWriteSent, "tenant-1:order-1|child", 1);
  story.event(EventKind::kWriteAccepted, "tenant-1:order-1|child", 1);
  story.event(EventKind::kSinkRefused, "tenant-1:order-1|child", 2);
  EXPECT_EQ(story.reached("independent-epochs"), 0u);
  EXPECT_EQ(story.reached("stale-write-refused"), 1u);
}

TEST(SinkMarks, OneScopeKeyOrOneTokenIsNotIndependent) {
  Story story;
  story.event(EventKind::kSinkApplied, "tenant-1:order-1", 1);
  story.event(EventKind::kSinkApplied, "tenant-1:order-1", 2);
  story.event(EventKind::kSinkApplied, "tenant-1:order-2", 2);
  EXPECT_EQ(story.reached("independent-epochs"), 0u);
}

}  // namespace
}  // namespace fencesim::properties::sink_marks_test
