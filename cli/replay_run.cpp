#include "cli/replay_run.h"

#include <optional>
#include <vector>

#include "explore/explorer.h"
#include "explore/replay_chooser.h"

namespace fencesim::cli {

// The choice log and the chooser replaying it; `source` is what the driven registry reads at the
// start of each world.
struct ReplayRun::Driver {
  std::vector<std::uint32_t> log;
  std::optional<explore::ReplayChooser> chooser;
  sim::ChoiceSource* source = nullptr;
};

ReplayRun::ReplayRun(const scenarios::ScenarioRegistry& registry, const reports::ReplayFile& file,
                     const std::string& path)
    : registry_(reports::registry_for(registry, file, path)), request_(reports::run_request(file)) {
  if (file.choices && registry_.find(file.scenario) != nullptr) {
    driver_ = std::make_shared<Driver>();
    driver_->log = *file.choices;
    registry_ = explore::driven_registry(registry_, file.scenario, &driver_->source);
  }
}

void ReplayRun::rewind() const {
  if (driver_) {
    // A chooser remembers how far it read: a second run starts over, or it would replay nothing.
    driver_->chooser.emplace(driver_->log);
    driver_->source = &*driver_->chooser;
  }
}

TimedRun ReplayRun::execute(const std::string& trace_path, const Inspect& inspect) const {
  rewind();
  return cli::execute(registry_, request_, trace_path, inspect);
}

properties::RunReport ReplayRun::run(const Inspect& inspect) const {
  rewind();
  return properties::run_scenario(registry_, request_, inspect);
}

}  // namespace fencesim::cli
