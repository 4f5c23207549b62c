// step-commits-under-its-token (properties/invariants_commit_token.h).
#include "properties/invariants_commit_token.h"

#include <fmt/format.h>

#include <map>
#include <tuple>

#include "properties/history_support.h"

namespace fencesim::properties {

using runtime::EventKind;

void check_step_commits_under_its_token(const Events& events, std::vector<Violation>& out) {
  // The token each node last took for each key (its lease-taken record: the store's grant as the
  // holder received it). Names: no bytes copied per event.
  std::map<std::pair<sim::NodeId, sim::NameKey>, runtime::Token> taken;
  // Per node, key and step path: the tokens held at its starts -> the first such start.
  std::map<std::tuple<sim::NodeId, sim::NameKey, sim::Name>, std::map<runtime::Token, std::uint64_t>>
      starts;
  for (const sim::HistoryEvent& e : events) {
    if (const sim::RuntimeRecord* r = runtime_event(e)) {
      if (r->kind == EventKind::kLeaseTaken) {
        taken[{e.node, r->key}] = r->token;
      } else if (r->kind == EventKind::kStepStarted) {
        const auto held = taken.find({e.node, r->key});
        if (held == taken.end()) continue;  // a step without a take: other oracles judge it
        starts[{e.node, r->key, r->step}].try_emplace(held->second, e.index);
      }
      continue;
    }
    if (e.world != sim::WorldEventKind::kStoreCall || !e.store) continue;
    const sim::StoreCall& call = *e.store;
    if (call.op != sim::StoreOp::kCommitStep) continue;
    const auto ran = starts.find({call.from, call.key, call.argument});
    if (ran == starts.end() || ran->second.contains(call.token)) continue;
    const auto& [token, started] = *ran->second.rbegin();
    out.push_back(violation(
        StepCommitsUnderItsToken{}.name(),
        fmt::format("the checkpoint of step '{}' of {} reached the store from node {} under token "
                    "{}, a token the node held at no start of that step (the latest it started it "
                    "under: token {})",
                    call.argument, runtime::to_string(call.key), call.from, call.token, token),
        {started, e.index}));
  }
}

void StepCommitsUnderItsToken::check(const sim::World& world, std::vector<Violation>& out) const {
  check_step_commits_under_its_token(world.history().events(), out);
}

}  // namespace fencesim::properties
