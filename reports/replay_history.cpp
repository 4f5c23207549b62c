#include "reports/replay_history.h"

#include <fmt/format.h>

#include <map>

namespace fencesim::reports {

HistoryRecord record_history(const sim::History& history, const sim::FaultPlan& plan) {
  HistoryRecord record;
  const std::vector<std::uint64_t>& rolling = history.rolling_hashes();
  record.events = rolling.size();
  record.digest.reserve(rolling.size() * kDigestHexPerEvent);
  for (const std::uint64_t hash : rolling) record.digest += fmt::format("{:04x}", hash & 0xffffu);
  record.faults_fired = count_fired(history, plan);
  return record;
}

std::vector<std::uint64_t> count_fired(const sim::History& history, const sim::FaultPlan& plan) {
  std::map<std::string, std::uint64_t> applied;
  for (const sim::HistoryEvent& event : history.events()) {
    if (event.world == sim::WorldEventKind::kFaultApplied) ++applied[event.detail];
  }
  // Each application counts for the first fault of its description that has not yet taken one;
  // what is left over goes to the last fault of that description (a fault that fires repeatedly).
  std::vector<std::uint64_t> fired(plan.faults.size(), 0);
  std::map<std::string, std::size_t> last;
  for (std::size_t i = 0; i < plan.faults.size(); ++i) {
    const std::string description = sim::describe(plan.faults[i]);
    last[description] = i;
    auto it = applied.find(description);
    if (it != applied.end() && it->second > 0) {
      fired[i] = 1;
      --it->second;
    }
  }
  for (const auto& [description, left] : applied) {
    if (const auto it = last.find(description); it != last.end()) fired[it->second] += left;
  }
  return fired;
}

}  // namespace fencesim::reports
