// A fenced write's call ends at its lease's abort (issue 9, item 12; ADR-0023, Consequences: "a
// step whose lease's own expiry fires before its fenced write settles still ends its call with
// ExecutionLeaseLostError" — the pass is rejected on the abort, not when the write's reply or RPC
// timeout comes, 60 to 90 s later). The call's begin and return are the workload's own record
// (scenarios::write_effect). The abort's moment is the earlier of:
// - the local expiry the lease store's grants give the token on the holder's clock
//   (properties/local_expiry.h), taken to true time through the holder's clock: the oracle's
//   own, never earlier than the holder's, so a correct holder is never accused;
// - the holder's own loss of the token (kLeaseLost, kLeaseReleased), used only as a timing
//   anchor: a loss the store cannot see (a refused renewal, a refusal, a yield) aborts the step
//   as well, and the runtime's report of it says when; it is never trusted to say the lease was
//   held.
// Between the abort (or the call's begin, if later) and the return, the holder's running time —
// true time less its pauses (kNodePaused to kNodeResumed: a paused process runs nothing) — is at
// most kCallAfterAbortMaxNs. The runtime needs no time at all there (the abort wakes the call);
// the bound only absorbs the scheduler's ordering and is far below any reply or RPC timeout.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "properties/history_support.h"
#include "properties/invariants_fence_use.h"
#include "properties/local_expiry.h"

namespace fencesim::properties {

namespace {

// The pauses of one node, as [from, to) in true time; the last may still be open.
struct Pauses {
  std::vector<std::pair<std::int64_t, std::int64_t>> spans;
  bool open = false;

  // True time in [from, to) during which the node was paused.
  std::int64_t within(std::int64_t from, std::int64_t to) const {
    std::int64_t paused = 0;
    for (std::size_t i = 0; i < spans.size(); ++i) {
      const std::int64_t a = spans[i].first;
      const std::int64_t b = (i + 1 == spans.size() && open) ? to : spans[i].second;
      paused += std::max<std::int64_t>(0, std::min(b, to) - std::max(a, from));
    }
    return paused;
  }
};

using HolderToken = std::tuple<sim::NodeId, sim::NameKey, runtime::Token>;

}  // namespace

void check_call_ends_at_abort(const Events& events, const LocalExpiryPolicy& policy,
                              const RunFacts& facts, std::vector<Violation>& out,
                              std::int64_t max_ns) {
  const std::string_view name = CallEndsAtAbort{}.name();
  LocalExpiries expiries(policy);
  std::map<sim::NodeId, Pauses> pauses;
  std::map<HolderToken, const sim::HistoryEvent*> reported_loss;
  for (const sim::HistoryEvent& e : events) {
    expiries.add(e);
    if (e.world == sim::WorldEventKind::kNodePaused) {
      Pauses& p = pauses[e.node];
      if (!p.open) p.spans.emplace_back(e.time_ns, e.time_ns);
      p.open = true;
      continue;
    }
    if (e.world == sim::WorldEventKind::kNodeResumed) {
      Pauses& p = pauses[e.node];
      if (p.open) p.spans.back().second = e.time_ns;
      p.open = false;
      continue;
    }
    if (is(e, runtime::EventKind::kLeaseLost) || is(e, runtime::EventKind::kLeaseReleased)) {
      reported_loss.try_emplace({e.node, e.runtime.key, e.runtime.token}, &e);
      continue;
    }
    if (e.world != sim::WorldEventKind::kObserved || e.runtime.holder != "write") continue;
    const sim::RuntimeRecord& r = e.runtime;
    std::optional<std::int64_t> abort_ns;
    std::uint64_t anchor = e.index;
    std::string why;
    if (auto x = expiries.expiry(r.key, r.token, e.node);
        x && x->monotonic_ns < e.local_monotonic_ns) {
      abort_ns = true_time_when(facts, e.node, e.time_ns, e.local_monotonic_ns, x->monotonic_ns);
      anchor = x->grant_index;
      why = fmt::format("its lease's local expiry (monotonic {}ns, from the store's grants)",
                        x->monotonic_ns);
    }
    if (auto it = reported_loss.find({e.node, r.key, r.token});
        it != reported_loss.end() && (!abort_ns || it->second->time_ns < *abort_ns)) {
      abort_ns = it->second->time_ns;
      anchor = it->second->index;
      why = "its holder's loss of the lease";
    }
    if (!abort_ns) continue;
    const std::int64_t from = std::max(*abort_ns, r.value);
    auto p = pauses.find(e.node);
    const std::int64_t running =
        e.time_ns - from - (p == pauses.end() ? 0 : p->second.within(from, e.time_ns));
    if (running <= max_ns) continue;
    out.push_back(violation(
        name,
        fmt::format("a write of step '{}' of {} under token {} (effect '{}' to '{}') returned "
                    "'{}' to its body {:.3f} s of its holder's running time after {}",
                    r.step, runtime::to_string(r.key), r.token, r.detail, r.scope_key, e.detail,
                    static_cast<double>(running) / 1e9, why),
        {anchor, e.index}));
  }
}

void CallEndsAtAbort::check(const sim::World& world, std::vector<Violation>& out) const {
  const sim::LeaseTerms& lease = world.options().lease;
  check_call_ends_at_abort(world.history().events(), expiry_policy_of(lease), run_facts(world),
                           out);
}

}  // namespace fencesim::properties
