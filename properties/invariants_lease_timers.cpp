// The holder's lease timers, judged on the truth. A step may rely on its signal (the cancel check,
// a long step that polls signal().aborted()), not only on fence calls that check the lease on their
// own; so when the lease runs out the holder must say so at once, and while the lease is held its
// renewal timer must keep it alive. Both are judged from the holder's sends and the store's grants
// (its kStoreCall records): the local expiry is the oracle's own (send time + ttl - drift margin,
// from the lease policy's numbers), never the confirmedUntil the holder reports.
//
// TimerPauses (stall, stop, migration) stop a node's fibers: a timer that fell due during one fires when
// the node resumes, so both invariants move their deadlines past the pauses the history shows. A
// crash ends every lease the node held (its memory is gone).
#include "properties/invariants_lease_timers.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>

#include "properties/history_support.h"

namespace fencesim::properties {

using std::string_view_literals::operator""sv;

using runtime::EventKind;

namespace {

constexpr std::int64_t kTimerNever = std::numeric_limits<std::int64_t>::max();

// When each node was paused: [from, to) in true time, in order; `to` is kTimerNever if it never resumed.
using TimerPauses = std::map<sim::NodeId, std::vector<std::pair<std::int64_t, std::int64_t>>>;

// A lease as one holder (one incarnation of a node) held it, from its kLeaseTaken to the first of
// its kLeaseLost, kLeaseReleased or the node's crash.
struct Holding {
  sim::NodeId node = sim::kWorldNode;
  HeldToken held;
  std::uint64_t taken_index = 0;
  std::int64_t taken_ns = 0;
  std::optional<std::uint64_t> end_index;
  std::int64_t end_ns = kTimerNever;
  // kRenewSent: the timer's, and a confirm's too (read_timeline says why).
  std::vector<const sim::HistoryEvent*> renewals;
};

struct Timeline {
  TimerPauses pauses;
  std::vector<Holding> holdings;
  std::int64_t last_ns = 0;  // the history's last event: nothing is judged past it
};

Timeline read_timeline(const Events& events) {
  Timeline t;
  std::map<std::pair<sim::NodeId, HeldToken>, std::size_t> open;
  // Every renewal counts toward the cadence, a confirm's strict renewal too. Telling the step's
  // renewal from the timer's cannot be done from the history: since the #360 cancel checks, a
  // confirm renews only after a round trip to the checkpoint store (or never, when that read
  // fails), and a timer that fell due during a pause fires in the very instant the node resumes,
  // beside a confirm made then (swarm seed 634 pct-d4 was a false alarm when a renewal in the
  // confirm's instant was taken for the confirm's). Counting both is lenient only where a lease
  // is confirmed at least once a renew interval.
  auto end = [&t](std::size_t at, const sim::HistoryEvent& e) {
    Holding& h = t.holdings[at];
    if (h.end_index) return;
    h.end_index = e.index;
    h.end_ns = e.time_ns;
  };
  for (const sim::HistoryEvent& e : events) {
    t.last_ns = std::max(t.last_ns, e.time_ns);
    if (e.world == sim::WorldEventKind::kNodePaused) {
      t.pauses[e.node].push_back({e.time_ns, kTimerNever});
      continue;
    }
    if (e.world == sim::WorldEventKind::kNodeResumed) {
      auto& list = t.pauses[e.node];
      if (!list.empty() && list.back().second == kTimerNever) list.back().second = e.time_ns;
      continue;
    }
    if (e.world == sim::WorldEventKind::kNodeCrashed) {
      for (auto it = open.begin(); it != open.end();) {
        if (it->first.first == e.node) {
          end(it->second, e);
          it = open.erase(it);
        } else {
          ++it;
        }
      }
      continue;
    }
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) continue;
    // Only these kinds are read: the copy of the holder and key (hostile names run to hundreds
    // of bytes) is made for them alone.
    if (r->kind != EventKind::kLeaseTaken && r->kind != EventKind::kLeaseLost &&
        r->kind != EventKind::kLeaseReleased && r->kind != EventKind::kRenewSent) {
      continue;
    }
    const std::pair<sim::NodeId, HeldToken> id{e.node, held_token(*r)};
    switch (r->kind) {
      case EventKind::kLeaseTaken:
        open[id] = t.holdings.size();
        t.holdings.push_back(Holding{e.node, id.second, e.index, e.time_ns, {}, kTimerNever, {}});
        break;
      case EventKind::kLeaseLost:
      case EventKind::kLeaseReleased:
        if (auto it = open.find(id); it != open.end()) {
          end(it->second, e);
          open.erase(it);
        }
        break;
      case EventKind::kRenewSent: {
        if (auto it = open.find(id); it != open.end()) {
          t.holdings[it->second].renewals.push_back(&e);
        }
        break;
      }
      default:
        break;
    }
  }
  return t;
}

// The true time at which `node` has run for `duration_ns` since `from_ns`, pauses not counted.
std::int64_t run_for(const TimerPauses& pauses, sim::NodeId node, std::int64_t from_ns,
                     std::int64_t duration_ns) {
  std::int64_t at = from_ns;
  std::int64_t left = duration_ns;
  if (auto it = pauses.find(node); it != pauses.end()) {
    for (const auto& [paused, resumed] : it->second) {
      if (resumed <= at) continue;
      if (paused > at) {
        if (paused - at >= left) return at + left;
        left -= paused - at;
      }
      if (resumed == kTimerNever) return kTimerNever;
      at = resumed;
    }
  }
  return at + left;
}

// `at_ns`, or the end of the pause `node` is in at that moment.
std::int64_t running_at_or_after(const TimerPauses& pauses, sim::NodeId node, std::int64_t at_ns) {
  if (auto it = pauses.find(node); it != pauses.end()) {
    for (const auto& [paused, resumed] : it->second) {
      if (paused <= at_ns && at_ns < resumed) return resumed;
    }
  }
  return at_ns;
}

// The longest a monotonic duration can take in true time on `node`, for the drift it ran at.
std::int64_t longest_true(const RunFacts& facts, sim::NodeId node, std::int64_t monotonic_ns) {
  std::int64_t slowest_ppm = 0;
  if (auto it = facts.drift.find(node); it != facts.drift.end()) {
    for (const DriftChange& change : it->second) {
      slowest_ppm = std::min(slowest_ppm, change.drift_ppm);
    }
  }
  __extension__ typedef __int128 Wide128;
  const Wide128 rate = 1'000'000 + slowest_ppm;
  if (rate <= 0) return kTimerNever;
  return static_cast<std::int64_t>((Wide128{monotonic_ns} * 1'000'000 + rate - 1) / rate);
}

std::string describe_holding(const Holding& h) {
  return fmt::format("{} token {} of {}", h.held.holder, h.held.token,
                     runtime::to_string(h.held.key));
}

}  // namespace

void check_renewal_cadence(const Events& events, const RunFacts& facts,
                           const LeaseTimerPolicy& policy, std::vector<Violation>& out) {
  const Timeline t = read_timeline(events);
  for (const Holding& h : t.holdings) {
    const std::int64_t interval = longest_true(facts, h.node, policy.renew_interval_ns);
    if (interval == kTimerNever) continue;
    // The timer starts with the take; after each renewal it sleeps again once the reply (or the
    // timeout) is back.
    std::int64_t from = h.taken_ns;
    std::uint64_t from_index = h.taken_index;
    std::int64_t budget = interval;
    auto late = [&](std::int64_t deadline, std::uint64_t next_index, std::int64_t next_ns,
                    std::string_view what) {
      out.push_back(violation(
          RenewalCadence{}.name(),
          fmt::format("{} sent no renewal between t={}ns and {} at t={}ns: its timer was due by "
                      "t={}ns",
                      describe_holding(h), from, what, next_ns, deadline),
          {from_index, next_index}));
    };
    bool judged = false;
    for (const sim::HistoryEvent* renewal : h.renewals) {
      const std::int64_t deadline = run_for(t.pauses, h.node, from, budget);
      if (deadline != kTimerNever && renewal->time_ns > deadline + policy.slack_ns) {
        late(deadline, renewal->index, renewal->time_ns, "its next renewal");
        judged = true;
        break;
      }
      from = renewal->time_ns;
      from_index = renewal->index;
      budget = interval + policy.rpc_timeout_ns;
    }
    if (judged) continue;
    const std::int64_t deadline = run_for(t.pauses, h.node, from, budget);
    if (deadline == kTimerNever) continue;
    const std::int64_t until = std::min(h.end_ns, t.last_ns);
    if (until <= deadline + policy.slack_ns) continue;
    late(deadline, h.end_index.value_or(from_index), until,
         h.end_index ? "the lease's end" : "the end of the run, still holding");
  }
}

void check_timely_loss(const Events& events, const RunFacts& facts, const LeaseTimerPolicy& policy,
                       std::vector<Violation>& out) {
  struct Grant {
    std::int64_t sent_ns = 0;
    runtime::Nanoseconds sent_monotonic_ns = 0;
    runtime::Nanoseconds ttl_ns = 0;
    std::uint64_t index = 0;
  };
  auto margin = [&policy](runtime::Nanoseconds ttl_ns) {
    return ttl_ns / 1'000'000 * 2 * policy.expiry.drift_bound_ppm +
           policy.expiry.drift_margin_min_ns;
  };
  std::map<std::pair<sim::NodeId, HeldToken>, std::vector<Grant>> grants;
  for (const sim::HistoryEvent& e : events) {
    if (e.world != sim::WorldEventKind::kStoreCall || !e.store) continue;
    const sim::StoreCall& call = *e.store;
    if (call.op == sim::StoreOp::kTake && call.outcome == "taken"sv && call.lease) {
      grants[{call.from, HeldToken{call.holder, call.key, call.lease->token}}].push_back(
          {call.sent_ns, call.sent_monotonic_ns, call.ttl_ns, e.index});
    } else if (call.op == sim::StoreOp::kRenew && call.outcome == "renewed"sv) {
      grants[{call.from, HeldToken{call.holder, call.key, call.token}}].push_back(
          {call.sent_ns, call.sent_monotonic_ns, call.ttl_ns, e.index});
    }
  }
  const Timeline t = read_timeline(events);
  for (const Holding& h : t.holdings) {
    auto found = grants.find({h.node, h.held});
    if (found == grants.end()) continue;  // a holding the store never granted: not this oracle's
    std::vector<Grant> mine = found->second;
    std::sort(mine.begin(), mine.end(), [](const Grant& a, const Grant& b) {
      return a.sent_monotonic_ns < b.sent_monotonic_ns;
    });
    // The take, then each renewal sent while the lease was still held, extends it. A granted
    // renewal whose reply never came back counts too: that only makes the oracle's expiry later.
    runtime::Nanoseconds expiry =
        mine.front().sent_monotonic_ns + mine.front().ttl_ns - margin(mine.front().ttl_ns);
    std::uint64_t last = mine.front().index;
    for (const Grant& g : mine) {
      if (g.sent_monotonic_ns >= expiry) break;
      const runtime::Nanoseconds until = g.sent_monotonic_ns + g.ttl_ns - margin(g.ttl_ns);
      if (until > expiry) {
        expiry = until;
        last = g.index;
      }
    }
    const Grant& anchor = mine.front();
    const std::int64_t expiry_true =
        true_time_when(facts, h.node, anchor.sent_ns, anchor.sent_monotonic_ns, expiry);
    // A take whose reply came back late (its sender paused) can hand over a lease that has
    // already expired locally: it is due to be given up the moment it is taken.
    const std::int64_t due =
        running_at_or_after(t.pauses, h.node, std::max(expiry_true, h.taken_ns));
    // The slack is running time: a node paused again at the instant it resumed (a fault
    // triggered by another of its fibers) has had no time to run its expiry timer.
    const std::int64_t latest =
        due == kTimerNever ? kTimerNever : run_for(t.pauses, h.node, due, policy.slack_ns);
    if (latest == kTimerNever || latest >= std::min(h.end_ns, t.last_ns)) continue;
    out.push_back(violation(
        TimelyLoss{}.name(),
        fmt::format("{} expired locally at t={}ns (monotonic {}ns){}, but its holder gave it up "
                    "only at {} ({}ns of slack allowed)",
                    describe_holding(h), expiry_true, expiry,
                    due != std::max(expiry_true, h.taken_ns)
                        ? fmt::format(" and was due to be given up at t={}ns (its node was "
                                      "paused or its take came back late)",
                                      due)
                        : std::string(),
                    h.end_index ? fmt::format("t={}ns", h.end_ns) : std::string("no time"),
                    policy.slack_ns),
        h.end_index ? std::vector<std::uint64_t>{last, *h.end_index}
                    : std::vector<std::uint64_t>{last}));
  }
}

namespace {

LeaseTimerPolicy timer_policy(const sim::World& world) {
  const sim::LeaseTerms& lease = world.options().lease;
  return LeaseTimerPolicy{lease.renew_interval_ns, world.options().network.rpc_timeout_ns,
                          expiry_policy_of(lease), runtime::kMillisecond};
}

}  // namespace

void RenewalCadence::check(const sim::World& world, std::vector<Violation>& out) const {
  check_renewal_cadence(world.history().events(), run_facts(world), timer_policy(world), out);
}

void TimelyLoss::check(const sim::World& world, std::vector<Violation>& out) const {
  check_timely_loss(world.history().events(), run_facts(world), timer_policy(world), out);
}

void check_lease_timers(const sim::World& world, runtime::Nanoseconds slack_ns,
                        std::vector<Violation>& out) {
  LeaseTimerPolicy policy = timer_policy(world);
  policy.slack_ns = slack_ns;
  const RunFacts facts = run_facts(world);
  check_renewal_cadence(world.history().events(), facts, policy, out);
  check_timely_loss(world.history().events(), facts, policy, out);
}

}  // namespace fencesim::properties
