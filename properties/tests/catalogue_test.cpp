// Every registered scenario passes on the correct runtime and reaches the marks it names: a story
// whose dangerous moment is never reached proves nothing.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "properties/marks.h"
#include "properties/run.h"

namespace fencesim::properties::catalogue_test {
namespace {

constexpr std::uint64_t kSeeds = 30;

std::vector<std::string> scenario_names() {
  std::vector<std::string> names;
  const auto registry = scenarios::builtin_scenarios();
  for (const scenarios::Scenario* s : registry.all()) names.push_back(s->name);
  return names;
}

class Catalogue : public ::testing::TestWithParam<std::string> {};

TEST_P(Catalogue, PassesAndReachesItsMarks) {
  const auto registry = scenarios::builtin_scenarios();
  const scenarios::Scenario* scenario = registry.find(GetParam());
  ASSERT_NE(scenario, nullptr);
  auto pool = std::make_shared<sim::StackPool>();
  std::map<std::string, std::uint64_t> reached;
  for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
    RunRequest request{GetParam(), seed,
                       seed % 2 ? sim::Strategy::kRandomWalk : sim::Strategy::kPct};
    request.stack_pool = pool;
    const RunReport report = run_scenario(registry, request);
    std::string why = report.detail;
    for (const Violation& v : report.violations) why += "; " + v.invariant + ": " + v.message;
    ASSERT_EQ(report.status, RunStatus::kPass) << "seed " << seed << ": " << why;
    for (const auto& [mark, count] : report.marks) reached[mark] += count;
  }
  std::string seen;
  for (const auto& [mark, count] : reached) seen += " " + mark + "=" + std::to_string(count);
  // The swarm names every mark of the catalogue, for sweeps of 1,000 seeds (`fencesim sweep`
  // reports a mark never reached); in 30 seeds it must reach what the nightly mix, whose trees and
  // faults it extends, names.
  const std::vector<std::string> marks = scenarios::mark_names(
      GetParam() == "swarm" ? registry.find("nightly-mix")->marks : scenario->marks);
  for (const std::string& mark : marks) {
    EXPECT_GT(reached[mark], 0u) << "mark '" << mark << "' never reached in " << kSeeds
                                 << " seeds; reached:" << seen;
  }
}

// Every mark a rule can reach from the history is floored by some built-in scenario: a mark no
// scenario claims can stop being reached (its rule broken, or its moment no longer made by any
// workload) and nothing would say so.
TEST(CatalogueMarks, EveryMarkOfTheRulesIsClaimedBySomeScenario) {
  const auto registry = scenarios::builtin_scenarios();
  std::set<std::string> claimed;
  for (const scenarios::Scenario* s : registry.all()) {
    for (const std::string& mark : scenarios::mark_names(s->marks)) claimed.insert(mark);
  }
  for (const std::string& mark : history_mark_names()) {
    EXPECT_TRUE(claimed.contains(mark)) << "no scenario claims '" << mark << "'";
  }
}

INSTANTIATE_TEST_SUITE_P(Scenarios, Catalogue, ::testing::ValuesIn(scenario_names()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string name = param_info.param;
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace fencesim::properties::catalogue_test
