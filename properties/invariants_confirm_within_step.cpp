// confirm-within-step (properties/invariants_confirm_within_step.h).
#include "properties/invariants_confirm_within_step.h"

#include <fmt/format.h>

#include <map>
#include <tuple>

#include "properties/history_support.h"

namespace fencesim::properties {

namespace {

using runtime::EventKind;

// One step path's runs at one node under one lease and token.
using StepSlot = std::tuple<sim::NodeId, sim::NameKey, runtime::Token, sim::Name>;

struct StepRunState {
  bool running = false;            // started, its body not yet returned
  std::uint64_t returned = 0;      // the event at which its latest run's body returned
  std::uint64_t started = 0;       // the latest run's kStepStarted
};

}  // namespace

void check_confirm_within_step(const Events& events, std::vector<Violation>& out) {
  std::map<StepSlot, StepRunState> runs;
  for (const sim::HistoryEvent& e : events) {
    if (e.world == sim::WorldEventKind::kObserved) {
      const sim::RuntimeRecord& r = e.runtime;
      if (r.holder != "confirm" || e.detail != "confirmed") continue;
      const auto it = runs.find(StepSlot{e.node, r.key, r.token, r.step});
      if (it == runs.end() || it->second.running) continue;
      out.push_back(violation(
          ConfirmWithinStep{}.name(),
          fmt::format("a confirmNow() for step '{}' of {} under token {} returned success after "
                      "the body of that step's run returned (event #{})",
                      r.step, runtime::to_string(r.key), r.token, it->second.returned),
          {it->second.started, it->second.returned, e.index}));
      continue;
    }
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) continue;
    if (r->kind == EventKind::kStepStarted) {
      StepRunState& state = runs[StepSlot{e.node, r->key, r->token, r->step}];
      state.running = true;
      state.started = e.index;
    } else if (r->kind == EventKind::kCheckpointSent || r->kind == EventKind::kStepEnded) {
      const auto it = runs.find(StepSlot{e.node, r->key, r->token, r->step});
      if (it == runs.end() || !it->second.running) continue;
      it->second.running = false;
      it->second.returned = e.index;
    }
  }
}

void ConfirmWithinStep::check(const sim::World& world, std::vector<Violation>& out) const {
  check_confirm_within_step(world.history().events(), out);
}

}  // namespace fencesim::properties
