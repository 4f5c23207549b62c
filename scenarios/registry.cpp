#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <tuple>

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

namespace {

// A function's own static: made on first use, so that registrations made while other files'
// statics are initialized always find it.
std::vector<ScenarioRegistration::Entry>& registrations() {
  static std::vector<ScenarioRegistration::Entry> entries;
  return entries;
}

}  // namespace

ScenarioRegistration::ScenarioRegistration(Function function, std::source_location where) {
  const std::string_view path = where.file_name();
  const std::size_t slash = path.find_last_of('/');
  registrations().push_back(
      Entry{function, std::string(slash == std::string_view::npos ? path : path.substr(slash + 1)),
            where.line()});
}

std::vector<ScenarioRegistration::Entry> ScenarioRegistration::all() {
  std::vector<Entry> entries = registrations();
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.file, a.line) < std::tie(b.file, b.line);
  });
  return entries;
}

ScenarioRegistry builtin_scenarios() {
  ScenarioRegistry registry;
  for (const ScenarioRegistration::Entry& entry : ScenarioRegistration::all()) {
    entry.function(registry);
  }
  return registry;
}

}  // namespace fencesim::scenarios
