#pragma once
// The figures `fencesim bench` reports, and its verdicts on them: what it measured goes in, its
// lines come out, so that which figure each goal is judged on is a test's to see (red team 41b-10:
// the simulator-switch goal, PCT's, judged on the random walk's cost, and the line read "met" with
// PCT's ratio above the goal). One slow or fast round on a shared machine must not decide a
// goal's verdict, so a figure taken in rounds is their median.
#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/check.h"

namespace fencesim::cli {

// The goals (issue 13 section 1).
inline constexpr double kGoalVirtualPerWall = 150'000;
inline constexpr double kGoalEventsPerSecond = 2'000'000;
inline constexpr double kGoalEventPerSwitch = 8;
inline constexpr double kGoalPctPerRoundRobin = 1.0;

struct Spent {
  double wall = 0;  // seconds
  double cpu = 0;   // seconds of this thread
};

// Nanoseconds per switch of each kind: each the median of `rounds` rounds (0: not said).
struct Switches {
  double raw = 0;
  double random_walk = 0;
  double pct = 0;
  std::size_t rounds = 0;
};

// What a switch measurement took, and how many yields its two fibers made in it.
struct Measured {
  Spent spent;
  std::uint64_t yields = 0;
};

// A switch's cost: the wall time over the yields counted, not over the yields asked for, so that
// a loop that runs more or fewer of them than asked moves the count with the time (red team
// 41b-16: the raw ping-pong ran twice its share, and every "x a raw fiber switch" read twice
// better).
inline double ns_per_yield(const Measured& measured) {
  check(measured.yields > 0, "a switch measurement made yields");
  return measured.spent.wall * 1e9 / static_cast<double>(measured.yields);
}

// One strategy's runs of a scenario.
struct Runs {
  std::uint64_t runs = 0;
  std::uint64_t failed = 0;  // violations or liveness: a built-in scenario should have none
  std::uint64_t events = 0;
  double virtual_seconds = 0;
  Spent spent;
};

// mimalloc's mi_version() (major * 100 + minor * 10 + patch, each one digit) as a reader knows it.
inline std::string mimalloc_name(int version) {
  return fmt::format("mimalloc {}.{}.{}", version / 100, (version / 10) % 10, version % 10);
}

inline std::string verdict(bool met) {
  return met ? "met" : "MISSED";
}

// The switch costs the runs are compared with: each kind's mean of its two measures, taken before
// and after the runs so that they bracket them.
inline Switches mean_of(const Switches& before, const Switches& after) {
  return {(before.raw + after.raw) / 2, (before.random_walk + after.random_walk) / 2,
          (before.pct + after.pct) / 2};
}

// The two switch lines: the switch costs measured `before` and `after` the runs, and their means
// (mean_of). PCT's is the goal's (`kGoalPctPerRoundRobin`).
inline std::string switch_lines(std::uint64_t switches, const Switches& before,
                                const Switches& after) {
  const Switches cost = mean_of(before, after);
  // How many rounds each measure is the median of: one round alone lets a slow or fast moment of
  // a shared machine decide a verdict (red team 41d-10 measured one round, and nothing showed it).
  std::string out =
      fmt::format("raw Boost.Fiber switch (round_robin, ping-pong, {} switches, each measure the "
                  "median of {} and {} rounds): {:.1f} ns (before the runs {:.1f}, after {:.1f})\n",
                  switches, before.rounds, after.rounds, cost.raw, before.raw, after.raw);
  // Each figure with the two it is the mean of, as the raw switch's: a reader (and a test) can
  // see that every mean brackets the runs with its own kind's two measures.
  out += fmt::format(
      "simulator switch: random walk {:.1f} ns (before the runs {:.1f}, after {:.1f}) = "
      "{:.2f}x round_robin; PCT {:.1f} ns (before the runs {:.1f}, after {:.1f}) = "
      "{:.2f}x round_robin (goal <= {:.1f}x): {}\n",
      cost.random_walk, before.random_walk, after.random_walk, cost.random_walk / cost.raw,
      cost.pct, before.pct, after.pct, cost.pct / cost.raw, kGoalPctPerRoundRobin,
      verdict(cost.pct / cost.raw <= kGoalPctPerRoundRobin));
  return out;
}

// One strategy's lines, and its wall nanoseconds per history event (compared across strategies).
struct RunsLines {
  std::string text;
  double ns_per_event = 0;
};

inline RunsLines runs_lines(std::string_view scenario, std::string_view strategy, const Runs& runs,
                            double raw_switch_ns) {
  const double events = static_cast<double>(std::max<std::uint64_t>(runs.events, 1));
  const double virtual_per_wall = runs.virtual_seconds / runs.spent.wall;
  const double virtual_per_cpu = runs.virtual_seconds / runs.spent.cpu;
  const double events_per_wall = events / runs.spent.wall;
  const double events_per_cpu = events / runs.spent.cpu;
  const double ns_per_event = runs.spent.wall * 1e9 / events;
  RunsLines lines{{}, ns_per_event};
  lines.text = fmt::format(
      "{} {}: {} runs ({} failed), {} history events, {:.0f} virtual s in {:.3f} s wall "
      "({:.3f} s CPU)\n",
      scenario, strategy, runs.runs, runs.failed, runs.events, runs.virtual_seconds,
      runs.spent.wall, runs.spent.cpu);
  lines.text += fmt::format("  virtual/wall {:.0f}x (CPU basis {:.0f}x; goal >= {:.0f}x): {}\n",
                            virtual_per_wall, virtual_per_cpu, kGoalVirtualPerWall,
                            verdict(virtual_per_wall >= kGoalVirtualPerWall));
  lines.text += fmt::format("  history events/s {:.0f} (CPU basis {:.0f}; goal >= {:.0f}): {}\n",
                            events_per_wall, events_per_cpu, kGoalEventsPerSecond,
                            verdict(events_per_wall >= kGoalEventsPerSecond));
  lines.text += fmt::format(
      "  wall per history event {:.0f} ns = {:.1f}x a raw fiber switch (goal <= {:.0f}x): {}\n",
      ns_per_event, ns_per_event / raw_switch_ns, kGoalEventPerSwitch,
      verdict(ns_per_event / raw_switch_ns <= kGoalEventPerSwitch));
  return lines;
}

// The middle value of `rounds` in order of size (the upper middle of an even count), whatever
// order they were taken in. REQUIRES: at least one round.
inline double median_of_rounds(std::vector<double> rounds) {
  check(!rounds.empty(), "a median needs a round");
  std::sort(rounds.begin(), rounds.end());
  return rounds[rounds.size() / 2];
}

}  // namespace fencesim::cli
