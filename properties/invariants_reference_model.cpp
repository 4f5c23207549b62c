// The reference model invariant: every request the stores and sinks handled, fed in order to the
// oracle's own model of the store-side rules (properties/reference_model.h), gets the verdict the
// store gave. A disagreement points at the request.
#include <fmt/format.h>

#include "properties/history_support.h"
#include "properties/invariants_builtin.h"
#include "properties/reference_model.h"

namespace fencesim::properties {

void check_reference_model(const Events& events, std::vector<Violation>& out) {
  ReferenceStores model;
  for (const sim::HistoryEvent& e : events) {
    if (e.world != sim::WorldEventKind::kStoreCall || !e.store) continue;
    if (std::optional<std::string> differs = model.handle(*e.store)) {
      out.push_back(violation(ReferenceModel{}.name(),
                              fmt::format("{}: {}", sim::describe(*e.store), *differs), {e.index}));
    }
  }
}

void ReferenceModel::check(const sim::World& world, std::vector<Violation>& out) const {
  check_reference_model(world.history().events(), out);
}

}  // namespace fencesim::properties
