#include "scenarios/unchecked_system.h"

#include <algorithm>
#include <optional>

#include "runtime/errors.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios {

using runtime::EventKind;

namespace {

bool is_lease_change(const sim::HistoryEvent& e) {
  return e.world == sim::WorldEventKind::kRuntime &&
         (e.runtime.kind == EventKind::kStoreLeaseGranted ||
          e.runtime.kind == EventKind::kStoreLeaseReleased);
}

LeaseChange change_of(const sim::HistoryEvent& e) {
  return LeaseChange{e.time_ns, e.runtime.kind == EventKind::kStoreLeaseGranted, e.runtime.token};
}

}  // namespace

void LeaseChanges::catch_up(const std::vector<sim::HistoryEvent>& events) {
  for (; read_ < events.size(); ++read_) {
    const sim::HistoryEvent& e = events[read_];
    if (is_lease_change(e)) changes_[e.runtime.key].push_back(change_of(e));
  }
}

const std::vector<LeaseChange>& LeaseChanges::of(const runtime::LeaseKey& key) const {
  static const std::vector<LeaseChange> none;
  const auto found = changes_.find(sim::NameKey(key));
  return found == changes_.end() ? none : found->second;
}

std::int64_t overlap_with_later_holders(const std::vector<LeaseChange>& changes,
                                        runtime::Token token, std::int64_t from_ns,
                                        std::int64_t to_ns) {
  std::int64_t overlap = 0;
  std::optional<std::int64_t> held_since;  // a later epoch's grant, not yet given back
  runtime::Token held_token = runtime::kTokenNone;
  auto close = [&](std::int64_t until_ns) {
    if (!held_since) return;
    overlap +=
        std::max<std::int64_t>(0, std::min(until_ns, to_ns) - std::max(*held_since, from_ns));
    held_since.reset();
  };
  for (const LeaseChange& change : changes) {
    if (change.time_ns > to_ns) break;
    if (change.granted) {
      close(change.time_ns);  // the next grant ends the previous holder's tenure
      if (change.token > token) {
        held_since = change.time_ns;
        held_token = change.token;
      }
    } else if (held_since && change.token == held_token) {
      close(change.time_ns);
    }
  }
  close(to_ns);
  return overlap;
}

std::int64_t overlap_with_later_holders(const std::vector<sim::HistoryEvent>& events,
                                        const runtime::LeaseKey& key, runtime::Token token,
                                        std::int64_t from_ns, std::int64_t to_ns) {
  std::vector<LeaseChange> changes;
  for (const sim::HistoryEvent& e : events) {
    if (is_lease_change(e) && e.runtime.key == key) changes.push_back(change_of(e));
  }
  return overlap_with_later_holders(changes, token, from_ns, to_ns);
}

std::int64_t UncheckedSystem::call(runtime::ExecutionContext& ctx, runtime::Nanoseconds duration) {
  const runtime::LeaseKey key{ctx.fence().tenant_id(), ctx.fence().lease_execution_id()};
  const runtime::Token token = ctx.fence().token();
  const sim::NodeId node = world_.node_of(ctx);
  const std::int64_t from_ns = world_.scheduler().now_ns();
  const std::int64_t to_ns = from_ns + duration;
  ctx.env().sleep(duration);  // the caller waits for the system's answer
  // By now (at or after to_ns) the history holds every grant and release up to the call's end.
  changes_.catch_up(world_.history().events());
  const std::int64_t overlap =
      overlap_with_later_holders(changes_.of(key), token, from_ns, to_ns);
  world_.measure(node, "unchecked-calls", 1);
  if (overlap > 0) {
    world_.measure(node, "unchecked-overlap-calls", 1);
    world_.measure(node, "unchecked-overlap-ns", overlap);
    world_.mark(ctx, "unchecked-call-overlapped");
  }
  return overlap;
}

bool UncheckedSystem::confirm(runtime::ExecutionContext& ctx) {
  bool confirmed = false;
  try {
    confirm_now(world_, ctx);
    confirmed = true;
  } catch (const runtime::ExecutionLeaseLostError&) {
  }
  if (!confirmed) world_.mark(ctx, "confirm-refused");
  // Whether the store granted the renewal that answered it is the strict-confirm oracle's to judge,
  // from the store's record and the body's (never from what this caller believes).
  return confirmed;
}

}  // namespace fencesim::scenarios
