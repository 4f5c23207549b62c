// Fence after loss (issue 9, item 9): once a lease is lost, the fence its step body reads must say
// so: confirmedUntil not in the future, assertHeld() throwing. What the body read is the
// workload's own record (scenarios::read_fence, after every write and confirm: "until <ns>
// held|lost <code>", stamped with the holder's monotonic clock). Whether the lease was lost at
// that moment is the oracle's own judgement, from three sources, each enough:
// - the holder reported the loss of that token (its kLeaseLost or kLeaseReleased) before the read:
//   the runtime's admission, never its belief;
// - the lease store granted a later token of the key before the read (in runs within the ADR's
//   clock assumptions, where the store grants a later take only after its expiry, which a
//   conservative holder's confirmedUntil never outlasts);
// - the holder's clock had reached the local expiry that the store's grants give the token
//   (properties/local_expiry.h, never earlier than the holder's own).
#include <fmt/format.h>

#include <map>
#include <set>
#include <tuple>

#include "properties/fence_read.h"
#include "properties/history_support.h"
#include "properties/invariants_fence_use.h"
#include "properties/local_expiry.h"

namespace fencesim::properties {

using std::string_view_literals::operator""sv;

namespace {

using HolderToken = std::tuple<sim::NodeId, sim::NameKey, runtime::Token>;

}  // namespace

void check_fence_after_loss(const Events& events, const LocalExpiryPolicy& policy,
                            bool within_assumptions, std::vector<Violation>& out) {
  const std::string_view name = FenceAfterLoss{}.name();
  LocalExpiries expiries(policy);
  std::map<HolderToken, std::uint64_t> reported_loss;  // the holder's first loss event
  std::map<sim::NameKey, std::pair<runtime::Token, std::uint64_t>> latest_grant;
  for (const sim::HistoryEvent& e : events) {
    expiries.add(e);
    if (e.world == sim::WorldEventKind::kStoreCall && e.store &&
        e.store->op == sim::StoreOp::kTake && e.store->outcome == "taken"sv && e.store->lease) {
      auto& latest = latest_grant[e.store->key];
      if (e.store->lease->token > latest.first) latest = {e.store->lease->token, e.index};
      continue;
    }
    if (is(e, runtime::EventKind::kLeaseLost) || is(e, runtime::EventKind::kLeaseReleased)) {
      reported_loss.try_emplace({e.node, e.runtime.key, e.runtime.token}, e.index);
      continue;
    }
    if (e.world != sim::WorldEventKind::kObserved || e.runtime.holder != "fence") continue;
    const sim::RuntimeRecord& r = e.runtime;
    const std::optional<FenceRead> read = parse_fence_read(e.detail);
    if (!read) {
      out.push_back(
          violation(name, fmt::format("unreadable fence record '{}'", e.detail), {e.index}));
      continue;
    }
    // Whatever the lease's state, the fence's two readings agree with each other and with the
    // store: assertHeld() returns only while confirmedUntil has not passed, and confirmedUntil is
    // never later than the local expiry the store's grants give the token on this holder's clock.
    const std::optional<LocalExpiries::Expiry> granted = expiries.expiry(r.key, r.token, e.node);
    if (read->held && read->until <= e.local_monotonic_ns) {
      out.push_back(violation(
          name,
          fmt::format("step '{}' of {}: assertHeld() returned at monotonic {}ns though the fence's "
                      "confirmedUntil {}ns had passed",
                      r.step, runtime::to_string(r.key), e.local_monotonic_ns, read->until),
          {e.index}));
    }
    if (granted && read->until > granted->monotonic_ns) {
      out.push_back(violation(
          name,
          fmt::format("step '{}' of {} (token {}): the fence's confirmedUntil {}ns is later than "
                      "the local expiry {}ns the store's grants give it",
                      r.step, runtime::to_string(r.key), r.token, read->until,
                      granted->monotonic_ns),
          {granted->grant_index, e.index}));
    }
    std::string why;
    std::uint64_t cause = e.index;
    if (auto it = reported_loss.find({e.node, r.key, r.token}); it != reported_loss.end()) {
      why = "its holder had reported the loss";
      cause = it->second;
    } else if (auto g = latest_grant.find(r.key);
               within_assumptions && g != latest_grant.end() && g->second.first > r.token) {
      why = fmt::format("the lease store had granted token {}", g->second.first);
      cause = g->second.second;
    } else if (const auto& x = granted; x && e.local_monotonic_ns >= x->monotonic_ns) {
      why = fmt::format(
          "the holder's clock had passed the local expiry {}ns that the store's "
          "grants give it",
          x->monotonic_ns);
      cause = x->grant_index;
    } else {
      continue;  // not known to be lost: anything may be read
    }
    const std::string subject =
        fmt::format("step '{}' of {} read its fence (token {}) at monotonic {}ns, after {}", r.step,
                    runtime::to_string(r.key), r.token, e.local_monotonic_ns, why);
    if (read->until > e.local_monotonic_ns) {
      out.push_back(violation(name,
                              fmt::format("{}: confirmedUntil {}ns still lies {}ns in the future",
                                          subject, read->until, read->until - e.local_monotonic_ns),
                              {cause, e.index}));
    }
    if (read->held) {
      out.push_back(
          violation(name, fmt::format("{}: assertHeld() returned", subject), {cause, e.index}));
    }
  }
}

void FenceAfterLoss::check(const sim::World& world, std::vector<Violation>& out) const {
  const sim::LeaseTerms& lease = world.options().lease;
  check_fence_after_loss(world.history().events(), expiry_policy_of(lease),
                         world.within_assumptions(), out);
}

}  // namespace fencesim::properties
