// The footprint the chooser gives each step of a run (explore/path_chooser.h), fed picks and
// touches by hand: a step touches its own node and what the world reports during it, and a step
// of the world's own fiber (the liveness watcher, which reads the stores directly) touches
// everything. A footprint too small makes the reduction skip orders that matter.
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <vector>

#include "explore/path_chooser.h"

namespace fencesim::explore::path_chooser_test {
namespace {

constexpr sim::NodeId kInstance = 3;
constexpr sim::NodeId kStore = 1;

TEST(PathChooserFootprint, AStepTouchesItsOwnNodeAndWhatIsReportedDuringIt) {
  std::vector<ChoicePoint> path;
  PathChooser chooser(path, true);
  const sim::Candidate instance{7, kInstance};
  chooser.pick_fiber(std::span(&instance, 1));
  chooser.touch(kStore);
  chooser.pick_fiber(std::span(&instance, 1));
  chooser.finish();
  ASSERT_EQ(chooser.steps().size(), 2u);
  EXPECT_EQ(chooser.steps()[0].footprint.objects(),
            (std::vector<std::uint32_t>{kStore, kInstance}));
  EXPECT_EQ(chooser.steps()[1].footprint.objects(), (std::vector<std::uint32_t>{kInstance}));
  EXPECT_FALSE(chooser.steps()[0].footprint.touches_all());
}

TEST(PathChooserFootprint, AStepOfTheWorldsOwnFiberTouchesEverything) {
  std::vector<ChoicePoint> path;
  PathChooser chooser(path, true);
  const std::vector<sim::Candidate> runnable{{1, sim::kWorldNode}, {2, kInstance}};
  EXPECT_EQ(chooser.pick_fiber(runnable), 0u);  // the default: the first in spawn order
  chooser.pick_fiber(std::span(&runnable[1], 1));
  chooser.finish();
  ASSERT_EQ(chooser.steps().size(), 2u);
  EXPECT_TRUE(chooser.steps()[0].footprint.touches_all());
  EXPECT_FALSE(chooser.steps()[1].footprint.touches_all());
  EXPECT_FALSE(independent(chooser.steps()[0].footprint, chooser.steps()[1].footprint));
}

}  // namespace
}  // namespace fencesim::explore::path_chooser_test
