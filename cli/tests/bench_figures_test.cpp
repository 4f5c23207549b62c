// The bench's figures taken in rounds are medians: the middle round by size, whatever order the
// rounds came in (red team 39b-48 took the second round as it came: one slow round then decided
// whether a switch-cost goal read as met). Each goal's verdict is judged on its own figure (red
// team 41b-10 judged PCT's switch goal on the random walk's cost), written from the goals' words
// in `fencesim bench`'s lines, not from the constants.
#include "cli/bench_figures.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fencesim::cli::bench_figures_test {
namespace {

TEST(BenchFigures, TheMedianOfRoundsIsTheMiddleOneWhateverTheirOrder) {
  EXPECT_EQ(median_of_rounds({3, 1, 2}), 2);
  EXPECT_EQ(median_of_rounds({5, 9, 1}), 5);
  EXPECT_EQ(median_of_rounds({1, 2, 30}), 2);
  EXPECT_EQ(median_of_rounds({30, 2, 1}), 2);
  EXPECT_EQ(median_of_rounds({7}), 7);
  // An even count: the upper middle.
  EXPECT_EQ(median_of_rounds({4, 1, 3, 2}), 3);
}

bool ends_with(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::string::size_type from = 0;
  for (auto end = text.find('\n'); end != std::string::npos; end = text.find('\n', from)) {
    lines.push_back(text.substr(from, end - from));
    from = end + 1;
  }
  return lines;
}

// The allocator the figures ran on, by its own version number (red team 41d-12 printed 2.0.9 as
// "mimalloc 2.20.9"; the snapshots mask the allocator, which differs between machines).
TEST(BenchFigures, MimallocsVersionIsSpelledAsItsReleases) {
  EXPECT_EQ(mimalloc_name(209), "mimalloc 2.0.9");
  EXPECT_EQ(mimalloc_name(217), "mimalloc 2.1.7");
  EXPECT_EQ(mimalloc_name(180), "mimalloc 1.8.0");
}

TEST(BenchFigures, ASwitchCostsItsWallTimeOverTheYieldsCounted) {
  EXPECT_DOUBLE_EQ(ns_per_yield({{0.001, 0.002}, 20'000}), 50.0);  // 1 ms over 20,000 yields
  EXPECT_DOUBLE_EQ(ns_per_yield({{0.001, 0.0005}, 40'000}), 25.0);  // wall time, not CPU
}

TEST(BenchFigures, TheSwitchGoalIsJudgedOnPctsCostAndTheMeansBracketTheRuns) {
  // The random walk as cheap as a raw switch, PCT dearer: the goal (PCT at most 1.0x) missed.
  const std::vector<std::string> missed =
      lines_of(switch_lines(2000, {50, 50, 60, 3}, {50, 50, 60, 3}));
  ASSERT_EQ(missed.size(), 2u);
  EXPECT_EQ(missed[0],
            "raw Boost.Fiber switch (round_robin, ping-pong, 2000 switches, each measure the median "
            "of 3 and 3 rounds): 50.0 ns (before the runs 50.0, after 50.0)");
  EXPECT_TRUE(ends_with(missed[1], "PCT 60.0 ns (before the runs 60.0, after 60.0) = 1.20x "
                                   "round_robin (goal <= 1.0x): MISSED"))
      << missed[1];
  // PCT cheap, the random walk dear: met.
  const std::vector<std::string> met = lines_of(switch_lines(2000, {50, 70, 40}, {50, 70, 40}));
  EXPECT_TRUE(ends_with(met[1], "= 0.80x round_robin (goal <= 1.0x): met")) << met[1];
  // Each mean is its own kind's two measures'.
  const std::vector<std::string> means = lines_of(switch_lines(1000, {40, 30, 20, 3}, {60, 50, 40, 5}));
  EXPECT_EQ(means[0],
            "raw Boost.Fiber switch (round_robin, ping-pong, 1000 switches, each measure the median "
            "of 3 and 5 rounds): 50.0 ns (before the runs 40.0, after 60.0)");
  EXPECT_EQ(means[1],
            "simulator switch: random walk 40.0 ns (before the runs 30.0, after 50.0) = 0.80x "
            "round_robin; PCT 30.0 ns (before the runs 20.0, after 40.0) = 0.60x round_robin "
            "(goal <= 1.0x): met");
}

TEST(BenchFigures, EachRunsGoalIsJudgedOnItsOwnFigure) {
  // 4 runs, 1 failed, 3,000,000 events and 300,000 virtual seconds in 1 s wall, 0.5 s CPU:
  // 300,000x virtual/wall (goal 150,000x: met), 3,000,000 events/s (goal 2,000,000: met),
  // 333 ns an event against a 50 ns switch: 6.7x (goal 8x: met).
  Runs fast{4, 1, 3'000'000, 300'000, {1.0, 0.5}};
  RunsLines lines = runs_lines("nightly-mix", "random", fast, 50);
  EXPECT_EQ(lines_of(lines.text),
            (std::vector<std::string>{
                "nightly-mix random: 4 runs (1 failed), 3000000 history events, 300000 virtual s "
                "in 1.000 s wall (0.500 s CPU)",
                "  virtual/wall 300000x (CPU basis 600000x; goal >= 150000x): met",
                "  history events/s 3000000 (CPU basis 6000000; goal >= 2000000): met",
                "  wall per history event 333 ns = 6.7x a raw fiber switch (goal <= 8x): met"}));
  EXPECT_NEAR(lines.ns_per_event, 333.3, 0.1);
  // Judged on wall time, not CPU time: the same runs in 2 s wall, still 0.5 s CPU.
  Runs slow = fast;
  slow.spent.wall = 2.0;
  lines = runs_lines("swarm", "pct", slow, 50);
  const std::vector<std::string> slow_lines = lines_of(lines.text);
  ASSERT_EQ(slow_lines.size(), 4u);
  EXPECT_EQ(slow_lines[0].substr(0, 11), "swarm pct: ");
  EXPECT_TRUE(ends_with(slow_lines[1], "(CPU basis 600000x; goal >= 150000x): met"))
      << slow_lines[1];
  EXPECT_TRUE(ends_with(slow_lines[2], "1500000 (CPU basis 6000000; goal >= 2000000): MISSED"))
      << slow_lines[2];
  EXPECT_TRUE(ends_with(slow_lines[3], "667 ns = 13.3x a raw fiber switch (goal <= 8x): MISSED"))
      << slow_lines[3];
  // Virtual time judged alone: 100,000 virtual seconds in 1 s misses its goal, the rest met.
  Runs little_virtual = fast;
  little_virtual.virtual_seconds = 100'000;
  const std::vector<std::string> virtual_lines =
      lines_of(runs_lines("nightly-mix", "random", little_virtual, 50).text);
  EXPECT_TRUE(ends_with(virtual_lines[1], "goal >= 150000x): MISSED")) << virtual_lines[1];
  EXPECT_TRUE(ends_with(virtual_lines[2], "goal >= 2000000): met")) << virtual_lines[2];
}

}  // namespace
}  // namespace fencesim::cli::bench_figures_test
