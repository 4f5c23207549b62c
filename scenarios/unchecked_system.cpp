#include "scenarios/unchecked_system.h"

#include <algorithm>
#include <optional>

#include "runtime/errors.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios {

using runtime::EventKind;

std::int64_t overlap_with_later_holders(const std::vector<sim::HistoryEvent>& events,
                                        const runtime::LeaseKey& key, runtime::Token token,
                                        std::int64_t from_ns, std::int64_t to_ns) {
  std::int64_t overlap = 0;
  std::optional<std::int64_t> held_since;  // a later epoch's grant, not yet given back
  runtime::Token held_token = runtime::kTokenNone;
  auto close = [&](std::int64_t until_ns) {
    if (!held_since) return;
    overlap +=
        std::max<std::int64_t>(0, std::min(until_ns, to_ns) - std::max(*held_since, from_ns));
    held_since.reset();
  };
  for (const sim::HistoryEvent& e : events) {
    if (e.time_ns > to_ns) break;
    if (e.world != sim::WorldEventKind::kRuntime || e.runtime.key != key) continue;
    const sim::RuntimeRecord& r = e.runtime;
    if (r.kind == EventKind::kStoreLeaseGranted) {
      close(e.time_ns);  // the next grant ends the previous holder's tenure
      if (r.token > token) {
        held_since = e.time_ns;
        held_token = r.token;
      }
    } else if (r.kind == EventKind::kStoreLeaseReleased && held_since && r.token == held_token) {
      close(e.time_ns);
    }
  }
  close(to_ns);
  return overlap;
}

std::int64_t UncheckedSystem::call(runtime::ExecutionContext& ctx, runtime::Nanoseconds duration) {
  const runtime::LeaseKey key{ctx.fence().tenant_id(), ctx.fence().lease_execution_id()};
  const runtime::Token token = ctx.fence().token();
  const sim::NodeId node = world_.node_of(ctx);
  const std::int64_t from_ns = world_.scheduler().now_ns();
  const std::int64_t to_ns = from_ns + duration;
  ctx.env().sleep(duration);  // the caller waits for the system's answer
  // By now (at or after to_ns) the history holds every grant and release up to the call's end.
  const std::int64_t overlap =
      overlap_with_later_holders(world_.history().events(), key, token, from_ns, to_ns);
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
