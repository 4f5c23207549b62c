#include "scenarios/pass_end_trouble.h"

#include <array>

#include "runtime/observer.h"

namespace fencesim::scenarios {

using runtime::kMillisecond;
using runtime::kSecond;

void add_pass_end_queue_faults(const sim::World& world, sim::FaultPlan& plan, sim::Rng rng,
                               const std::vector<std::string>& instances) {
  // Half the seeds: a pass's end meets the queue's absence now and then, not in every run.
  if (!rng.chance(0.5) || instances.empty()) return;
  static constexpr std::array kPassEnds{
      runtime::EventKind::kTreeCompleted, runtime::EventKind::kCancelSeen,
      runtime::EventKind::kErrorClassified, runtime::EventKind::kTreeAbandoned};
  const std::string store = "lease-store";
  if (!world.find_node(store)) return;
  const auto count = rng.between(1, 3);
  for (std::int64_t i = 0; i < count; ++i) {
    sim::Fault fault{};
    const std::string instance = instances[rng.below(instances.size())];
    if (rng.chance(0.5)) {
      // The instance alone loses the store: its finish (or release) fails with an RPC timeout.
      fault.kind = sim::FaultKind::kPartition;
      fault.node = instance;
      fault.peer = store;
    } else {
      // The store is silent for everyone: every instance's finish fails for that moment.
      fault.kind = sim::FaultKind::kStoreDown;
      fault.node = store;
    }
    fault.duration_ns = rng.between(200, 3000) * kMillisecond;
    // Right at the end (0 ms: the finish leaves in this instant) or shortly after (the step
    // signals of a cancelled pass unwind before it is ended).
    fault.trigger =
        sim::Trigger{kPassEnds[rng.below(kPassEnds.size())], static_cast<int>(rng.between(1, 4)),
                     rng.chance(0.5) ? 0 : rng.between(1, 500) * kMillisecond, instance};
    plan.faults.push_back(fault);
  }
}

void add_child_key_client(sim::World& world, sim::Rng rng) {
  // A third of the seeds: one to three attempts, at drawn instants of the safety phase.
  if (!rng.chance(0.33)) return;
  const auto attempts = rng.between(1, 3);
  const std::int64_t safety_ns = world.options().safety_phase_ns;
  for (std::int64_t i = 0; i < attempts; ++i) {
    const std::int64_t at = rng.between(5 * kSecond, safety_ns - 5 * kSecond);
    const std::uint64_t pick = rng.next();
    world.scheduler().at(at, [&world, pick] {
      // The key a client could have read: an AnyInstance child on the queue now (pending() is in
      // placement order, so the pick is deterministic).
      std::vector<runtime::Placement> children;
      for (const runtime::Placement& p : world.queue().pending()) {
        if (p.parent) children.push_back(p);
      }
      if (children.empty()) return;
      const runtime::Placement& child = children[pick % children.size()];
      world.client_place(child.key, child.workflow);
    });
  }
}

}  // namespace fencesim::scenarios
