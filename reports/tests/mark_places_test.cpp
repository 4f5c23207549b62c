// Every mark at the event that reached it: place_marks follows count_marks' rules (it cannot share
// their code), so the two are held together here on every built-in scenario, with the runtime's
// sinks and with the broken one, over several seeds: name by name, as many placed as counted.
#include "reports/mark_places.h"

#include <gtest/gtest.h>

#include <map>

#include "properties/marks.h"
#include "properties/run.h"
#include "reports/tests/timeline_fixture.h"

namespace fencesim::reports {
namespace {

TEST(MarkPlacesTest, EveryCountedMarkIsPlacedAtAnEvent) {
  const scenarios::ScenarioRegistry registry = scenarios::builtin_scenarios();
  std::map<std::string, std::uint64_t> reached;  // over every run, to see the check was not empty
  for (const scenarios::Scenario* scenario : registry.all()) {
    for (const char* sink_double : {"", "accept-stale"}) {
      for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        properties::RunRequest request;
        request.scenario = scenario->name;
        request.seed = seed;
        request.sink_double = sink_double;
        properties::run_scenario(
            registry, request, [&](const sim::World& world, const properties::RunReport& report) {
              std::map<std::string, std::uint64_t> placed;
              std::uint64_t previous = 0;
              for (const PlacedMark& mark : place_marks(world)) {
                ++placed[mark.name];
                ASSERT_LT(mark.event, world.history().events().size());
                EXPECT_GE(mark.event, previous) << "in history order";
                previous = mark.event;
              }
              EXPECT_EQ(placed, report.marks)
                  << scenario->name << " seed " << seed << " sink " << sink_double;
              for (const auto& [name, count] : placed) reached[name] += count;
            });
      }
    }
  }
  // The rules that place marks from the history, not only workloads' own mark events, were used.
  for (const char* name : {"stale-write-refused", "takeover-mid-step", "renewal-raced-expiry",
                           "expiry-during-write", "rerun-deduplicated"}) {
    EXPECT_GT(reached[name], 0u) << name;
  }
}

// On the timeline, the refused stale write's mark sits at the sink's refusal, on the sink's lane.
TEST(MarkPlacesTest, TheTimelineDrawsAMarkCountedFromTheHistoryWhereItHappened) {
  const testing::Captured& run = testing::passing_kleppmann();
  const auto& t = run.timeline;
  ASSERT_EQ(t["marks_count"]["stale-write-refused"], 1);
  const auto marks = testing::where(t["marks"], "name", "stale-write-refused");
  ASSERT_EQ(marks.size(), 1u);
  const auto events = testing::where(t["events"], "i", marks[0]["event"]);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["kind"], "sink-refused");
  EXPECT_EQ(marks[0]["node"], events[0]["node"]);
  EXPECT_EQ(marks[0]["t"], events[0]["t"]);
  // Every mark counted is drawn: as many marks on the timeline as the counts add up to.
  std::uint64_t counted = 0;
  for (const auto& [name, count] : t["marks_count"].items()) counted += count.get<std::uint64_t>();
  EXPECT_EQ(t["marks"].size(), counted);
}

}  // namespace
}  // namespace fencesim::reports
