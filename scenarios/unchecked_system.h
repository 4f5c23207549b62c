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
#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/execution_context.h"
#include "sim/world.h"

namespace fencesim::scenarios {

// A grant or release of a key by the lease store, as its runtime event recorded it.
struct LeaseChange {
  std::int64_t time_ns = 0;
  bool granted = false;  // else released
  runtime::Token token = runtime::kTokenNone;
};

// The lease store's grants and releases of each key, read from a history as it grows: a call
// replays only its own key's, so a run's calls cost what its grants do rather than a walk of the
// whole history each (that walk was 3.5% of a nightly-mix sweep; docs/benchmarks.md).
class LeaseChanges {
 public:
  // Reads the events of `events` not read yet (the same growing history at every call).
  void catch_up(const std::vector<sim::HistoryEvent>& events);
  // `key`'s changes read so far, in history order (empty if none).
  const std::vector<LeaseChange>& of(const runtime::LeaseKey& key) const;

 private:
  std::size_t read_ = 0;
  std::unordered_map<sim::NameKey, std::vector<LeaseChange>> changes_;
};

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
  LeaseChanges changes_;
};

// The nanoseconds of [from_ns, to_ns] (true time) during which the store had granted a key to an
// epoch above `token` and not yet released it, from that key's changes in history order.
std::int64_t overlap_with_later_holders(const std::vector<LeaseChange>& changes,
                                        runtime::Token token, std::int64_t from_ns,
                                        std::int64_t to_ns);
// The same from a whole history, `key`'s changes picked out by a walk of every event (what a call
// did before LeaseChanges; the test of LeaseChanges compares the two).
std::int64_t overlap_with_later_holders(const std::vector<sim::HistoryEvent>& events,
                                        const runtime::LeaseKey& key, runtime::Token token,
                                        std::int64_t from_ns, std::int64_t to_ns);

}  // namespace fencesim::scenarios
