// The swarm's reconcile step marks `retry-deduplicated` when a retry of its unit finds its entry
// already written (the sink answers "deduplicated"). A mark floor is a minimum, so a mark made on
// the wrong writes (every first write, say) would still meet it and prove nothing: each mark must
// follow, on its node and at its instant, the workload's record of a reconcile write answered
// "deduplicated" (the mechanical sample's survivor reconcile_step.cpp:217, session 29).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "properties/run.h"
#include "scenarios/scenario.h"

namespace fencesim::scenarios::reconcile_marks_test {
namespace {

// Swarm seeds (PCT, 3 change points) whose runs reach the mark (found by a sweep).
constexpr std::uint64_t kSeeds[] = {57, 428, 479};

TEST(ReconcileMarks, EachRetryDeduplicatedFollowsADeduplicatedReconcileWrite) {
  const ScenarioRegistry registry = builtin_scenarios();
  std::size_t marks = 0;
  for (const std::uint64_t seed : kSeeds) {
    properties::RunRequest request{"swarm", seed};
    request.strategy = sim::Strategy::kPct;
    properties::run_scenario(
        registry, request, [&](const sim::World& world, const properties::RunReport&) {
          const auto& events = world.history().events();
          for (std::size_t i = 0; i < events.size(); ++i) {
            const sim::HistoryEvent& mark = events[i];
            if (mark.world != sim::WorldEventKind::kMark || mark.detail != "retry-deduplicated") {
              continue;
            }
            ++marks;
            // The latest reconcile write this node's workload recorded before the mark.
            std::string answered = "none";
            for (std::size_t j = i; j > 0; --j) {
              const sim::HistoryEvent& e = events[j - 1];
              if (e.node == mark.node && e.world == sim::WorldEventKind::kObserved &&
                  e.runtime.holder == "write" && e.runtime.detail == "reconcile") {
                answered = e.time_ns == mark.time_ns ? e.detail.str() : "an earlier instant's";
                break;
              }
            }
            EXPECT_EQ(answered, "deduplicated")
                << "swarm seed " << seed << " (pct): event #" << mark.index
                << " marks retry-deduplicated after a write answered " << answered;
          }
        });
  }
  EXPECT_GE(marks, 3u) << "the seeds no longer reach the mark: pick others (a swarm sweep's runs "
                          "with retry-deduplicated)";
}

}  // namespace
}  // namespace fencesim::scenarios::reconcile_marks_test
