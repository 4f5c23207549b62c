#include "explore/explorer.h"

#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <stdexcept>

#include "explore/path_chooser.h"

namespace fencesim::explore {

namespace {

// Moves the path to the next alternative to explore, depth first: the deepest point with an
// alternative not tried yet, awake, and within the bound. False when none is left.
bool backtrack(std::vector<ChoicePoint>& path, const ExploreOptions& options) {
  while (!path.empty()) {
    ChoicePoint& point = path.back();
    if (!point.covered) {
      if (point.fiber) point.done.emplace_back(point.chosen, point.chosen_footprint);
      point.tried[point.chosen] = true;
      for (std::size_t next = 0; next < point.count; ++next) {
        if (point.tried[next] || !point.backtrack[next]) continue;
        if (point.fiber && point.sleep_in.contains(point.candidates[next].fiber)) continue;
        if (point.delays_before + point.delays_of(next) > options.bound) break;
        point.chosen = next;
        point.tried[next] = true;
        return true;
      }
    }
    path.pop_back();
  }
  return false;
}

}  // namespace

scenarios::ScenarioRegistry driven_registry(const scenarios::ScenarioRegistry& registry,
                                            const std::string& scenario,
                                            sim::ChoiceSource* const* chooser) {
  const scenarios::Scenario* found = registry.find(scenario);
  if (found == nullptr) {
    throw properties::UsageError(
        fmt::format("unknown scenario '{}' (try 'fencesim list')", scenario));
  }
  scenarios::Scenario driven = *found;
  driven.configure = [inner = found->configure, chooser](sim::WorldOptions& options) {
    if (inner) inner(options);
    options.chooser = *chooser;
  };
  driven.build = [inner = found->build, chooser](sim::World& world) {
    if (auto* path = dynamic_cast<PathChooser*>(*chooser)) path->set_clock(&world.scheduler());
    inner(world);
  };
  scenarios::ScenarioRegistry out;
  out.add(std::move(driven));
  return out;
}

ExploreResult explore(const scenarios::ScenarioRegistry& registry, const ExploreOptions& options,
                      const OnFailure& on_failure) {
  if (options.bound < 0) throw properties::UsageError("--bound must be at least 0");
  sim::ChoiceSource* current = nullptr;
  const scenarios::ScenarioRegistry driven = driven_registry(registry, options.scenario, &current);
  properties::RunRequest request;
  request.scenario = options.scenario;
  request.seed = options.seed;
  request.sink_double = options.sink_double;
  request.stack_pool = std::make_shared<sim::StackPool>();

  ExploreResult result;
  const auto started = std::chrono::steady_clock::now();
  std::vector<ChoicePoint> path;
  while (result.schedules < options.max_schedules) {
    PathChooser chooser(path, options.reduce);
    current = &chooser;
    properties::RunReport report = properties::run_scenario(driven, request);
    current = nullptr;
    chooser.finish();
    if (options.reduce) add_races(path, chooser.steps());
    if (chooser.diverged()) {
      throw std::runtime_error(fmt::format(
          "explore {}: schedule {} did not replay its prefix (the world is not deterministic)",
          options.scenario, result.schedules + 1));
    }
    ++result.schedules;
    if (chooser.covered()) ++result.covered_runs;
    result.deepest_path = std::max(result.deepest_path, path.size());
    for (const auto& [mark, hits] : report.marks) {
      if (hits > 0) ++result.marks[mark];
    }
    if (report.status != properties::RunStatus::kPass) {
      ++result.failures;
      const std::string first = report.violations.empty()
                                    ? std::string(properties::to_string(report.status))
                                    : report.violations.front().invariant;
      ++result.by_invariant[first];
      if (on_failure &&
          !on_failure(ExploredFailure{result.schedules, std::move(report), choice_log(path)})) {
        break;
      }
    }
    if (!backtrack(path, options)) {
      result.complete = true;
      break;
    }
  }
  result.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace fencesim::explore
