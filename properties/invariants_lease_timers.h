#pragma once
// The holder's lease timers, judged from what the holder sent and what the lease store granted,
// never from the holder's own belief: it keeps renewing a lease it holds, and it gives a lease up
// (its signal aborted, kLeaseLost) no later than the local expiry the store's grants imply.
#include <cstdint>
#include <map>
#include <vector>

#include "properties/invariants_builtin.h"

namespace fencesim::properties {

class RenewalCadence final : public Invariant {
 public:
  std::string_view name() const override { return "renewal-cadence"; }
  std::string_view statement() const override {
    return "a holder keeps renewing a lease it holds: while its node runs and the lease is "
           "neither lost nor released, its renewal timer sends a renewal every renew interval "
           "(counted from the take, or from the previous renewal's reply or timeout; a confirm's "
           "renewal counts too), also after a renewal that failed or a retake";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

class TimelyLoss final : public Invariant {
 public:
  std::string_view name() const override { return "timely-loss"; }
  std::string_view statement() const override {
    return "a lease not renewed in time is given up (its signal aborted, lease-lost) no later "
           "than its local expiry: the send time of the last take or renewal the store granted "
           "+ ttl - the drift margin, or the moment its node resumes if it was paused then";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

struct LeaseTimerPolicy {
  runtime::Nanoseconds renew_interval_ns = 10 * runtime::kSecond;
  // How long a renewal call may take before the holder gives up on its reply.
  runtime::Nanoseconds rpc_timeout_ns = 2 * runtime::kSecond;
  LocalExpiryPolicy expiry;
  // Scheduling and clock rounding: timers fire at their virtual instant, so a millisecond is a lot.
  runtime::Nanoseconds slack_ns = runtime::kMillisecond;
};

// Both invariants over a world's history with `slack_ns` of timer lateness allowed instead of the
// simulation's millisecond: a real run (real/) is scheduled by the OS and woken late after
// SIGCONT, so its timers are judged with the OS's latency, scaled to scenario time.
void check_lease_timers(const sim::World& world, runtime::Nanoseconds slack_ns,
                        std::vector<Violation>& out);

void check_renewal_cadence(const Events& events, const RunFacts& facts,
                           const LeaseTimerPolicy& policy, std::vector<Violation>& out);
void check_timely_loss(const Events& events, const RunFacts& facts, const LeaseTimerPolicy& policy,
                       std::vector<Violation>& out);

}  // namespace fencesim::properties
