// The invariants every run is checked against, in the order their violations are reported.
#include "properties/invariants_builtin.h"

namespace fencesim::properties {

std::vector<std::unique_ptr<Invariant>> default_invariants() {
  std::vector<std::unique_ptr<Invariant>> out;
  out.push_back(std::make_unique<SinkMonotonicity>());
  out.push_back(std::make_unique<ExactlyOnce>());
  out.push_back(std::make_unique<PerKeyEpochs>());
  return out;
}

}  // namespace fencesim::properties
