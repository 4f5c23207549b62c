#include <fmt/format.h>

#include <stdexcept>

#include "scenarios/scenario.h"

namespace fencesim::scenarios {

void ScenarioRegistry::add(Scenario scenario) {
  const std::string name = scenario.name;
  if (!scenarios_.emplace(name, std::move(scenario)).second) {
    throw std::invalid_argument(fmt::format("scenario '{}' registered twice", name));
  }
}

const Scenario* ScenarioRegistry::find(const std::string& name) const {
  auto it = scenarios_.find(name);
  return it == scenarios_.end() ? nullptr : &it->second;
}

std::vector<const Scenario*> ScenarioRegistry::all() const {
  std::vector<const Scenario*> out;
  for (const auto& [name, scenario] : scenarios_) out.push_back(&scenario);
  return out;
}

ScenarioRegistry builtin_scenarios() {
  ScenarioRegistry registry;
  register_kleppmann_fencing(registry);
  register_nightly_mix(registry);
  register_catalogue_faults(registry);
  register_catalogue_fence_use(registry);
  register_catalogue_children(registry);
  register_catalogue_unchecked(registry);
  register_catalogue_explore(registry);
  register_catalogue_cancel(registry);
  register_planted_bugs(registry);
  return registry;
}

}  // namespace fencesim::scenarios
