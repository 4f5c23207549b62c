// See invariants_lease_given_back.h.
#include "properties/invariants_lease_given_back.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "properties/history_support.h"

namespace fencesim::properties {

void check_ended_pass_gives_back_its_lease(const Events& events, std::vector<Violation>& out) {
  std::set<HeldToken> given_back;  // released or lost, as its holder reported it
  std::vector<const sim::HistoryEvent*> ends;
  std::map<sim::NodeId, std::uint64_t> last_crash;  // the latest kNodeCrashed of each node
  for (const sim::HistoryEvent& e : events) {
    if (e.world == sim::WorldEventKind::kNodeCrashed) {
      last_crash[e.node] = e.index;
      continue;
    }
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) continue;
    switch (r->kind) {
      case runtime::EventKind::kLeaseReleased:
      case runtime::EventKind::kLeaseLost:
        given_back.insert(held_token(*r));
        break;
      case runtime::EventKind::kTreeCompleted:
      case runtime::EventKind::kTreeCancelled:
      case runtime::EventKind::kTreeAbandoned:
        ends.push_back(&e);
        break;
      default:
        break;
    }
  }
  for (const sim::HistoryEvent* end : ends) {
    const sim::RuntimeRecord& r = end->runtime;
    if (given_back.contains(held_token(r))) continue;
    const auto crash = last_crash.find(end->node);
    if (crash != last_crash.end() && crash->second > end->index) continue;
    out.push_back(violation(
        EndedPassGivesBackItsLease{}.name(),
        fmt::format("{}'s pass over {} ended ({}) under token {}, and the holder never reported "
                    "that lease released or lost",
                    r.holder, runtime::to_string(r.key.lease_key()), runtime::to_string(r.kind),
                    r.token),
        {end->index}));
  }
}

void EndedPassGivesBackItsLease::check(const sim::World& world,
                                       std::vector<Violation>& out) const {
  check_ended_pass_gives_back_its_lease(world.history().events(), out);
}

}  // namespace fencesim::properties
