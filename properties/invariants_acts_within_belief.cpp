// Acts within belief: a holder uses its lease only while the store's grants say it may. The ADR's
// margin rule: a holder believes its lease until confirmedUntil = the send time of the last take or
// renewal the store granted + ttl - the drift margin (on its own clock), and stops using it there,
// because past that instant the store may already have expired it and granted the next epoch to
// another instance (clocks drift within the bound): a write that leaves then can reach a sink
// before the next holder's first write, and no token check refuses it. So every act that relies on
// the lease (a fenced write or a checkpoint leaving the holder, an unchecked call after confirmNow,
// a step starting) happens before that local expiry. The expiry is the oracle's own
// (properties/local_expiry.h, from the store's records), never the runtime's belief: a runtime that
// checks only its lease's state and not its clock, or extends its belief on its own, is caught.
#include <fmt/format.h>

#include "properties/history_support.h"
#include "properties/invariants_builtin.h"
#include "properties/local_expiry.h"

namespace fencesim::properties {

using runtime::EventKind;

namespace {

std::string_view act_name(EventKind kind) {
  switch (kind) {
    case EventKind::kWriteSent:
      return "sent a fenced write";
    case EventKind::kCheckpointSent:
      return "sent a checkpoint";
    case EventKind::kUncheckedCallSent:
      return "made an unchecked call";
    case EventKind::kStepStarted:
      return "started a step";
    default:
      return {};
  }
}

}  // namespace

void check_acts_within_belief(const Events& events, const LocalExpiryPolicy& policy,
                              std::vector<Violation>& out) {
  LocalExpiries expiries(policy);
  for (const sim::HistoryEvent& e : events) {
    expiries.add(e);
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) continue;
    const std::string_view act = act_name(r->kind);
    if (act.empty() || r->token == runtime::kTokenNone) continue;
    // A token the store never granted to this node is judged by the token oracles.
    const std::optional<LocalExpiries::Expiry> expiry = expiries.expiry(r->key, r->token, e.node);
    if (!expiry || e.local_monotonic_ns < expiry->monotonic_ns) continue;
    out.push_back(violation(
        ActsWithinBelief{}.name(),
        fmt::format("{} {} for step '{}' of {} under token {} at monotonic {}ns, at or after the "
                    "local expiry {}ns that the store's grants give it",
                    r->holder, act, r->step, runtime::to_string(r->key), r->token,
                    e.local_monotonic_ns, expiry->monotonic_ns),
        {expiry->grant_index, e.index}));
  }
}

void ActsWithinBelief::check(const sim::World& world, std::vector<Violation>& out) const {
  const sim::LeaseTerms& lease = world.options().lease;
  check_acts_within_belief(world.history().events(), expiry_policy_of(lease), out);
}

}  // namespace fencesim::properties
