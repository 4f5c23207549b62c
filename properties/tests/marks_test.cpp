// The mark rules (properties/mark_rules.h) read as the history grows: a detector watching only a
// few marks runs only their rules, and must place exactly what the full set of rules places for
// those marks; the full set places, name by name, what count_marks counts. Held on every built-in
// scenario, with the runtime's sinks and with the broken one, over several seeds.
#include "properties/marks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "properties/mark_rules.h"
#include "properties/run.h"
#include "scenarios/scenario.h"

namespace fencesim::properties::marks_test {
namespace {

std::vector<PlacedMark> only(const std::vector<PlacedMark>& all,
                             const std::set<std::string>& names) {
  std::vector<PlacedMark> kept;
  std::copy_if(all.begin(), all.end(), std::back_inserter(kept),
               [&](const PlacedMark& mark) { return names.contains(mark.name); });
  return kept;
}

// Runs every built-in scenario, with the runtime's sinks and with the broken one, seeds 1..3, and
// hands each run's world and report to `check`.
template <typename Check>
void for_each_builtin_run(const Check& check) {
  const scenarios::ScenarioRegistry registry = scenarios::builtin_scenarios();
  for (const scenarios::Scenario* scenario : registry.all()) {
    for (const char* sink_double : {"", "accept-stale"}) {
      for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        RunRequest request;
        request.scenario = scenario->name;
        request.seed = seed;
        request.sink_double = sink_double;
        run_scenario(registry, request, [&](const sim::World& world, const RunReport& report) {
          check(*scenario, seed, world, report);
        });
      }
    }
  }
}

TEST(MarksTest, AWatchingDetectorPlacesWhatTheFullRulesPlaceForItsMarks) {
  std::map<std::string, std::uint64_t> reached;  // over every run, to see the check was not empty
  // One mark per rule that keeps state, one with shared state, and a workload's own mark.
  const std::vector<std::set<std::string>> watches = {
      {"fenced-after-local-expiry"},
      {"renewal-raced-expiry", "expiry-during-write"},
      {"takeover-mid-step", "stale-write-refused"},
      {"withdrawal-refused-while-live", "stale-renewal-refused"},
  };
  for_each_builtin_run([&](const scenarios::Scenario& s, std::uint64_t seed,
                           const sim::World& world, const RunReport& report) {
    const scenarios::Scenario* scenario = &s;
    const std::vector<PlacedMark> all = place_marks(world);
    std::map<std::string, std::uint64_t> placed;
    std::uint64_t previous = 0;
    for (const PlacedMark& mark : all) {
      ++placed[mark.name];
      ASSERT_LT(mark.event, world.history().events().size());
      EXPECT_GE(mark.event, previous) << "in history order";
      previous = mark.event;
    }
    EXPECT_EQ(placed, report.marks) << scenario->name << " seed " << seed;
    for (const auto& [name, count] : placed) reached[name] += count;
    std::vector<std::set<std::string>> runs_watches = watches;
    if (!scenario->marks.empty()) runs_watches.push_back({scenario->marks.front().name});
    for (const std::set<std::string>& watched : runs_watches) {
      MarkDetector detector(world, watched);
      std::vector<PlacedMark> seen;
      for (const sim::HistoryEvent& e : world.history().events()) detector.observe(e, seen);
      EXPECT_EQ(seen, only(all, watched)) << scenario->name << " seed " << seed;
    }
  });
  for (const char* name : {"stale-write-refused", "takeover-mid-step", "renewal-raced-expiry",
                           "expiry-during-write", "rerun-deduplicated"}) {
    EXPECT_GT(reached[name], 0u) << name;
  }
}

// A detector hands each rule only the kinds of event it says it reads (MarkRule::reads): a rule
// that says too few would miss the events it needs, and its marks would go quiet. Here every rule
// is fed every event, as the walk did before the rules said what they read, and must place what
// the detector places.
TEST(MarksTest, EachRuleIsHandedEveryEventItReads) {
  std::set<std::string> reached;
  for_each_builtin_run([&](const scenarios::Scenario& scenario, std::uint64_t seed,
                           const sim::World& world, const RunReport&) {
    std::vector<std::unique_ptr<MarkRule>> rules = make_mark_rules(world);
    std::vector<PlacedMark> fed;
    for (const sim::HistoryEvent& e : world.history().events()) {
      for (const std::unique_ptr<MarkRule>& rule : rules) {
        rule->observe(e, [&](std::string_view name) {
          fed.push_back(PlacedMark{std::string(name), e.index});
        });
      }
    }
    EXPECT_EQ(place_marks(world), fed) << scenario.name << " seed " << seed;
    for (const PlacedMark& mark : fed) reached.insert(mark.name);
  });
  // The comparison saw the marks of events of every kind the rules read: runtime events, store
  // calls, intents, observations, faults, restarts and a workload's own marks.
  for (const char* name :
       {"stale-write-refused", "cancel-during-confirm", "checkpoint-reply-after-local-expiry",
        "withdrawal-returned-after-its-release", "checkpoint-store-down", "instance-restarted",
        "renewal-at-store-expiry-instant", "take-of-a-spent-key-refused",
        "withdrawal-in-quiet-phase", "signal-looked-at-after-the-cancel-was-seen"}) {
    EXPECT_TRUE(reached.contains(name)) << name;
  }
}

TEST(MarksTest, HistoryMarkNamesAreTheRulesMarks) {
  const std::vector<std::string> names = history_mark_names();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  for (const char* name : {"fenced-after-local-expiry", "withdrawal-refused-while-live",
                           "instance-restarted", "cancel-seen", "lease-yielded"}) {
    EXPECT_TRUE(std::binary_search(names.begin(), names.end(), name)) << name;
  }
}

// The mixes declare the hostile-name trait marks by name (scenarios/mix_workload.cpp) and a rule
// of the history places them (properties/mark_rules.cpp): the two lists are one vocabulary, so a
// name declared and never placed, or placed and never claimed, is a mistake of one of them.
TEST(MarksTest, TheMixesClaimEveryHostileNameTraitTheRulePlaces) {
  const auto is_trait = [](const std::string& name) {
    return name.starts_with("hostile-name-") && name.ends_with("-ran") &&
           name != "hostile-name-ran";
  };
  std::vector<std::string> placed;
  for (const std::string& name : history_mark_names()) {
    if (is_trait(name)) placed.push_back(name);
  }
  EXPECT_EQ(placed.size(), 8u);
  const scenarios::ScenarioRegistry registry = scenarios::builtin_scenarios();
  for (const char* mix : {"nightly-mix", "swarm"}) {
    const scenarios::Scenario* scenario = registry.find(mix);
    ASSERT_NE(scenario, nullptr) << mix;
    std::vector<std::string> declared;
    for (const scenarios::MarkFloor& floor : scenario->marks) {
      if (is_trait(floor.name)) declared.push_back(floor.name);
    }
    std::sort(declared.begin(), declared.end());
    EXPECT_EQ(declared, placed) << mix;
  }
}

// A workload measures a figure once per event it counts (scenario 13: one "unchecked-calls 1" per
// unchecked call, one overlap in nanoseconds per call that overlapped): the run's figure is their
// sum, name by name. A sum that kept only the last measure would still report every figure a run
// measured, with a plausible value, and the sweep's totals would count one call per run.
TEST(MarksTest, AFigureIsTheSumOfEveryMeasureOfItsName) {
  sim::World world(sim::WorldOptions{});
  const sim::NodeId node = world.add_lease_store();
  for (int call = 0; call < 3; ++call) world.measure(node, "unchecked-calls", 1);
  world.measure(node, "unchecked-overlap-ns", 250);
  world.measure(node, "unchecked-overlap-ns", -50);
  EXPECT_EQ(sum_figures(world), (std::map<std::string, std::int64_t>{
                                    {"unchecked-calls", 3}, {"unchecked-overlap-ns", 200}}));
}

}  // namespace
}  // namespace fencesim::properties::marks_test
