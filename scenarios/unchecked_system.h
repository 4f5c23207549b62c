#pragma once
// A system that cannot check tokens (a mail server, a payment gateway without idempotency): it
// does whatever it is asked, by whoever asks. ADR-0023 gives a step confirmNow() before such a
// call and never claims exactly-once there; this model measures what is left: how often and how
// long a stale holder's call overlapped the holder that took its lease over.
//
// The truth is the lease store's history: a call overlaps where the store had granted the
// caller's key to a later epoch, from that grant until its release or the next grant. Each call
// reports the figures unchecked-calls, unchecked-overlap-calls and unchecked-overlap-ns
// (World::measure) and, when it overlapped, the mark unchecked-call-overlapped.
#include <string>

#include "runtime/execution_context.h"
#include "sim/world.h"

namespace fencesim::scenarios {

class UncheckedSystem {
 public:
  explicit UncheckedSystem(sim::World& world) : world_(world) {}

  // From a step: a call under the step's lease that the system works on for `duration` (true
  // time) from now; the caller waits for it. Returns the nanoseconds it overlapped a later holder.
  std::int64_t call(runtime::ExecutionContext& ctx, runtime::Nanoseconds duration);
  // confirmNow() as a careful caller makes it before a call (through scenarios::confirm_now, which
  // records what the body saw for the strict-confirm oracle); marks whether it refused. Returns
  // whether the caller may go on.
  bool confirm(runtime::ExecutionContext& ctx);

 private:
  sim::World& world_;
};

// The nanoseconds of [from_ns, to_ns] (true time) during which the store had granted `key` to an
// epoch above `token` and not yet released it, read from the lease store's events in `events`.
std::int64_t overlap_with_later_holders(const std::vector<sim::HistoryEvent>& events,
                                        const runtime::LeaseKey& key, runtime::Token token,
                                        std::int64_t from_ns, std::int64_t to_ns);

}  // namespace fencesim::scenarios
