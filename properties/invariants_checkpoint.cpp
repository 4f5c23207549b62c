// The store's own verdict on checkpoints: a commit lands only under the key's current epoch. The
// stale step's outcome is judged elsewhere (stale-step-never-succeeds); this one judges the store,
// so an unfenced checkpoint is caught even when the stale holder reports failure.
#include <fmt/format.h>

#include "properties/invariants_builtin.h"

namespace fencesim::properties {

void check_fenced_checkpoint(const Events& events, std::vector<Violation>& out) {
  for (const sim::HistoryEvent& e : events) {
    if (e.world != sim::WorldEventKind::kRuntime) continue;
    const runtime::RuntimeEvent& r = e.runtime;
    if (r.kind != runtime::EventKind::kStoreCheckpointCommitted) continue;
    const auto epoch = static_cast<runtime::Token>(r.value);
    if (r.token == epoch) continue;
    out.push_back(Violation{"fenced-checkpoint",
                            fmt::format("the store committed checkpoint '{}' of {} under token {} "
                                        "while the key's epoch was {}",
                                        r.step, runtime::to_string(r.key), r.token, epoch),
                            {e.index}});
  }
}

void FencedCheckpoint::check(const sim::World& world, std::vector<Violation>& out) const {
  check_fenced_checkpoint(world.history().events(), out);
}

}  // namespace fencesim::properties
