// Faults aimed at the protocol's deadlines (sim::Aim): the world tracks, from the runtime's events
// and its own clocks, when each holder's belief in a lease runs out and when the store's grant
// does, by the lease terms it holds the nodes to (sim/lease_terms.h), never by the figures the
// runtime reports: an aim written against the ADR's rules stays where the story put it even when
// the runtime under test computes its deadlines wrongly (that is what the oracles then see).
#include <fmt/format.h>

#include <algorithm>

#include "sim/world.h"

namespace fencesim::sim {

using runtime::EventKind;

namespace {

std::string seconds(std::int64_t ns) { return fmt::format("{:.3f} s", static_cast<double>(ns) / 1e9); }

}  // namespace

// Until when a grant of a request sent at `sent_monotonic_ns` lets its holder believe the lease,
// on the holder's clock: the ADR's holder counts from the send, less the drift margin.
std::int64_t World::believed_until_ns(std::int64_t sent_monotonic_ns) const {
  return sent_monotonic_ns + options_.lease.ttl_ns - options_.lease.drift_margin_ns();
}

void World::track_deadlines(NodeId node, const runtime::RuntimeEvent& event) {
  const std::int64_t now = scheduler_->now_ns();
  const LeaseTerms& terms = options_.lease;
  if (kinds_[node] == NodeKind::kInstance) {
    const std::int64_t monotonic = clocks_[node].monotonic_at(now);
    switch (event.kind) {
      case EventKind::kTakeSent: {
        // A new take: whatever this process believed about an earlier lease of the key is over.
        holder_terms_[{node, event.key}] = HolderTerm{monotonic, -1};
        break;
      }
      case EventKind::kRenewSent:
        holder_terms_[{node, event.key}].sent_monotonic_ns = monotonic;
        break;
      case EventKind::kLeaseTaken:
      case EventKind::kLeaseRenewed: {
        HolderTerm& term = holder_terms_[{node, event.key}];
        if (term.sent_monotonic_ns < 0) break;  // a grant of a request not seen leave
        // Counted from the send, as the ADR's holder must (a late reply extends nothing).
        term.believed_until_ns =
            std::max(term.believed_until_ns, believed_until_ns(term.sent_monotonic_ns));
        break;
      }
      default:
        break;
    }
    return;
  }
  if (kinds_[node] != NodeKind::kStore) return;
  switch (event.kind) {
    case EventKind::kStoreLeaseGranted:
    case EventKind::kStoreLeaseRenewed: {
      // The store judges expiry by its own clock: the true time at which its clock has moved a
      // ttl on from now (a later step of the store's clock is outside the protocol's
      // assumptions, and then the aim is off by the step).
      const NodeClock& clock = clocks_[node];
      store_expiry_ns_[event.key] = clock.true_time_when(clock.monotonic_at(now) + terms.ttl_ns);
      break;
    }
    case EventKind::kStoreLeaseReleased:
      store_expiry_ns_.erase(event.key);
      break;
    default:
      break;
  }
}

std::optional<std::int64_t> World::deadline_ns(Aim aim, NodeId node, const runtime::LeaseKey& key,
                                               EventKind event,
                                               const std::optional<Departure>& departure,
                                               std::string& missed) const {
  switch (aim) {
    case Aim::kEvent:
      return scheduler_->now_ns();
    case Aim::kHolderExpiry: {
      if (kinds_[node] != NodeKind::kInstance) {
        missed = fmt::format("{} is not an instance: it holds no lease", names_[node]);
        return std::nullopt;
      }
      auto it = holder_terms_.find({node, key});
      std::int64_t until = it == holder_terms_.end() ? -1 : it->second.believed_until_ns;
      if (it != holder_terms_.end() && it->second.sent_monotonic_ns >= 0 &&
          (event == EventKind::kTakeSent || event == EventKind::kRenewSent)) {
        // At the request itself: the expiry it gives if granted.
        until = std::max(until, believed_until_ns(it->second.sent_monotonic_ns));
      }
      if (until < 0) {
        missed = fmt::format("{} holds no lease of {}", names_[node], runtime::to_string(key));
        return std::nullopt;
      }
      return clocks_[node].true_time_when(until);
    }
    case Aim::kStoreExpiry: {
      auto it = store_expiry_ns_.find(key);
      if (it == store_expiry_ns_.end()) {
        missed = fmt::format("the store holds no lease of {}", runtime::to_string(key));
        return std::nullopt;
      }
      return it->second;
    }
    case Aim::kRpcTimeout:
      return departure->leaves_ns + network_->rpc_timeout_ns();
    case Aim::kInFlight:
      if (!departure->arrives_ns) {
        missed = fmt::format("the next message of {} was lost on the way", names_[node]);
        return std::nullopt;
      }
      return departure->leaves_ns;  // fire_aimed places the fault within the flight
  }
  return std::nullopt;
}

void World::aim(const Fault& fault, NodeId node, const runtime::RuntimeEvent& event) {
  const Trigger& trigger = *fault.trigger;
  if (!at_departure(trigger.aim) && !at_departure(trigger.until)) {
    fire_aimed(fault, node, event.key, event.kind, std::nullopt);
    return;
  }
  // The event comes before the request it announces leaves (take-sent, write-sent): the next
  // message the node sends is that request.
  network_->watch_next_send(
      node, [this, fault, node, key = event.key, kind = event.kind](
                std::int64_t leaves_ns, std::optional<std::int64_t> arrives_ns) {
        if (!quiet_) fire_aimed(fault, node, key, kind, Departure{leaves_ns, arrives_ns});
      });
}

void World::fire_aimed(const Fault& fault, NodeId node, const runtime::LeaseKey& key,
                       EventKind event, std::optional<Departure> departure) {
  const Trigger& trigger = *fault.trigger;
  const std::int64_t now = scheduler_->now_ns();
  FaultAim aimed{describe(fault), node_named(fault.node), trigger.aim};
  aimed.until = trigger.until;
  aimed.lease = runtime::to_string(key);
  const std::optional<std::int64_t> deadline =
      deadline_ns(trigger.aim, node, key, event, departure, aimed.missed);
  std::optional<std::int64_t> until_deadline;
  if (deadline && trigger.until != Aim::kEvent) {
    until_deadline = deadline_ns(trigger.until, node, key, event, departure, aimed.missed);
  }
  std::string words = aimed.fault;
  if (!deadline || (trigger.until != Aim::kEvent && !until_deadline)) {
    words += ": not fired, " + aimed.missed;
    aims_.push_back(std::move(aimed));
    record(aims_.back().node, WorldEventKind::kFaultAimed, words);
    return;
  }
  aimed.deadline_ns = *deadline;
  if (trigger.aim == Aim::kInFlight) {
    // Strictly inside the flight: after it left, before it arrives.
    const std::int64_t flight = *departure->arrives_ns - departure->leaves_ns;
    aimed.fires_ns = departure->leaves_ns +
                     std::clamp<std::int64_t>(flight * trigger.within_permille / 1000, 1,
                                              std::max<std::int64_t>(flight - 1, 1));
    aimed.deadline_ns = *departure->arrives_ns;
  } else {
    aimed.fires_ns = std::max(now, *deadline + trigger.delay_ns);
  }
  Fault resolved = fault;
  if (until_deadline) {
    aimed.until_deadline_ns = *until_deadline;
    aimed.ends_ns = *until_deadline + trigger.until_delay_ns;
    resolved.duration_ns = std::max<std::int64_t>(0, aimed.ends_ns - aimed.fires_ns);
  }
  words += fmt::format(": {} of {} at {}, fires at {}", to_string(trigger.aim), aimed.lease,
                       seconds(aimed.deadline_ns), seconds(aimed.fires_ns));
  if (until_deadline) {
    // The offset from it is in the fault's own words (describe) already.
    words += fmt::format(", until {} at {}: ends at {}", to_string(trigger.until),
                         seconds(*until_deadline), seconds(aimed.ends_ns));
  }
  const std::size_t index = aims_.size();
  aims_.push_back(std::move(aimed));
  record(aims_.back().node, WorldEventKind::kFaultAimed, words);
  const std::int64_t fires = aims_.back().fires_ns;
  if (fires <= now && !departure) {
    // At the event itself (a deadline already past): as a trigger with no delay.
    apply_aimed(resolved, index);
    return;
  }
  // From a departure, never inside the network's send: the message is scheduled first. The
  // deadline belongs to the process running now: if it has died by then, so has the deadline.
  const NodeId target = aims_.back().node;
  const std::uint64_t incarnation = scheduler_->node_incarnation(target);
  scheduler_->at(std::max(fires, now), [this, resolved, index, target, incarnation] {
    if (quiet_) return;
    if (scheduler_->node_incarnation(target) != incarnation) {
      aims_.at(index).missed =
          fmt::format("the process of {} it was aimed at ended before it fired", names_[target]);
      return;
    }
    apply_aimed(resolved, index);
  });
}

void World::apply_aimed(const Fault& fault, std::size_t aim) {
  aims_.at(aim).effect = ledger_.effects().size();
  apply(fault);
}

}  // namespace fencesim::sim
