// The store's own verdict on checkpoints: a commit lands only under the key's current epoch. The
// stale step's outcome is judged elsewhere (stale-step-never-succeeds); this one judges the store,
// so an unfenced checkpoint is caught even when the stale holder reports failure.
#include <fmt/format.h>

#include "properties/invariants_builtin.h"

namespace fencesim::properties {

void check_fenced_checkpoint(const Events& events, std::vector<Violation>& out) {
  for (const sim::HistoryEvent& e : events) {
    if (e.world != sim::WorldEventKind::kRuntime) continue;
    const sim::RuntimeRecord& r = e.runtime;
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

void check_fence_refuses_outside_its_step(const Events& events, std::vector<Violation>& out) {
  // A workload that uses a fence where it must refuse records this mark when it did not refuse
  // (scenarios/catalogue_fence_use.cpp): no event of the runtime says so, only the caller sees it.
  for (const sim::HistoryEvent& e : events) {
    if (e.world != sim::WorldEventKind::kMark || e.detail != "fence-misuse-not-refused") continue;
    out.push_back(Violation{"fence-refuses-outside-its-step",
                            "a fence was usable outside its running step (kept past it, an "
                            "ancestor's, or a frame without a held lease)",
                            {e.index}});
  }
}

void FenceRefusesOutsideItsStep::check(const sim::World& world, std::vector<Violation>& out) const {
  check_fence_refuses_outside_its_step(world.history().events(), out);
}

}  // namespace fencesim::properties
