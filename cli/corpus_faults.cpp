#include "cli/corpus_faults.h"

namespace fencesim::cli {

std::vector<std::string> unfired_faults(const sim::FaultPlan& plan,
                                        const std::map<std::string, std::size_t>& applied) {
  std::map<std::string, std::size_t> left = applied;
  std::vector<std::string> unfired;
  for (const sim::Fault& fault : plan.faults) {
    auto it = left.find(sim::describe(fault));
    if (it != left.end() && it->second > 0) {
      --it->second;
    } else {
      unfired.push_back(sim::describe(fault));
    }
  }
  return unfired;
}

}  // namespace fencesim::cli
