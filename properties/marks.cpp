#include "properties/marks.h"

#include <charconv>
#include <set>
#include <tuple>

#include "runtime/check.h"
#include "runtime/errors.h"

namespace fencesim::properties {

using runtime::EventKind;

namespace {

// Cancellation's moments (#360): a cancel recorded while a confirm of its tree was in flight, a
// holder that saw a cancel, a tree ended cancelled.
void count_cancel_marks(const sim::HistoryEvent& e, std::map<runtime::LeaseKey, std::int64_t>& cancels,
                        std::map<std::string, std::uint64_t>& marks) {
  if (e.world == sim::WorldEventKind::kStoreCall && e.store &&
      e.store->op == sim::StoreOp::kCancel && e.store->outcome == "recorded") {
    cancels.try_emplace(e.store->key, e.time_ns);
  } else if (e.world == sim::WorldEventKind::kObserved && e.runtime.holder == "confirm") {
    auto it = cancels.find(e.runtime.key);
    if (it != cancels.end() && e.runtime.value < it->second) ++marks["cancel-during-confirm"];
  } else if (e.world == sim::WorldEventKind::kRuntime) {
    if (e.runtime.kind == EventKind::kCancelSeen) ++marks["cancel-seen"];
    if (e.runtime.kind == EventKind::kTreeCancelled) ++marks["tree-cancelled"];
  }
}

}  // namespace

std::map<std::string, std::uint64_t> count_marks(const sim::World& world) {
  std::map<std::string, std::uint64_t> marks;
  // Keyed by the history's names (sim/name.h): reading an event copies no bytes.
  // Steps running per (key, token): started and not yet ended.
  std::map<std::pair<sim::NameKey, runtime::Token>, int> running;
  std::set<std::pair<sim::Name, sim::NameKey>> renewing;  // (holder, key) renew in flight
  // Writes in flight per (holder, key, token), to see a local expiry land in the middle of one.
  std::set<std::tuple<sim::Name, sim::NameKey, runtime::Token>> writing;
  std::set<std::pair<sim::Name, sim::NameKey>> waiting;  // remote-children waits
  // Why each held token was first lost at its holder.
  std::map<std::tuple<sim::Name, sim::NameKey, runtime::Token>, sim::Name> lost;
  // Per key, the store's latest grant (token) and whether it was given back since.
  std::map<sim::NameKey, std::pair<runtime::Token, bool>> granted;
  // True time of the store's latest renewal per (requester, key, token).
  std::map<std::tuple<sim::Name, sim::NameKey, runtime::Token>, std::int64_t> store_renewed;
  const runtime::Nanoseconds margin_ns = world.options().lease.drift_margin_ns();
  // Tokens accepted at each sink per tenant, by scope key.
  std::map<std::pair<std::string, std::string>, std::map<std::string, runtime::Token>> accepted;
  std::map<runtime::LeaseKey, std::int64_t> cancels;  // true time of each tree's recorded cancel
  for (const sim::HistoryEvent& e : world.history().events()) {
    if (e.world == sim::WorldEventKind::kMark) ++marks[e.detail];
    if (e.world == sim::WorldEventKind::kNodeRestarted) {
      ++marks[world.node_kind(e.node) == sim::NodeKind::kInstance ? "instance-restarted"
                                                                  : "store-restarted"];
    }
    count_cancel_marks(e, cancels, marks);
    if (e.world != sim::WorldEventKind::kRuntime) continue;
    const sim::RuntimeRecord& r = e.runtime;
    switch (r.kind) {
      case EventKind::kSinkRefused:
        ++marks["stale-write-refused"];
        break;
      case EventKind::kSinkDeduplicated:
        ++marks["rerun-deduplicated"];
        [[fallthrough]];
      case EventKind::kSinkApplied: {
        const std::string tenant = r.scope_key.substr(0, r.scope_key.find(':'));
        auto& tokens = accepted[{r.holder, tenant}];
        tokens[r.scope_key] = r.token;
        // Two scope keys of one tenant accepted at one sink with different epochs: the
        // high-water mark must be per scope key for both to be accepted.
        for (const auto& [scope, token] : tokens) {
          if (scope != r.scope_key && token != r.token) {
            ++marks["independent-epochs"];
            break;
          }
        }
        break;
      }
      case EventKind::kStoreRenewRefused:
        ++marks["late-renewal-refused"];
        if (auto it = granted.find(r.key); r.detail == "stale" && it != granted.end() &&
                                           it->second.first > r.token && !it->second.second) {
          ++marks["stale-renewal-refused"];  // the next holder held the key when it landed
        }
        break;
      case EventKind::kStoreLeaseReleased:
        if (auto it = granted.find(r.key); it != granted.end() && it->second.first == r.token) {
          it->second.second = true;
        }
        break;
      case EventKind::kStoreLeaseRenewed:
        store_renewed[{r.holder, r.key, r.token}] = e.time_ns;
        break;
      case EventKind::kErrorClassified:
        // A pass classified fenced although its lease had already expired locally: the abort
        // signal's reason was a plain lease-lost, so the fenced error was found in the failure.
        if (r.detail == runtime::ExecutionFencedError::kCode) {
          auto it = lost.find({r.holder, r.key, r.token});
          if (it != lost.end() && it->second == "local-expiry")
            ++marks["fenced-after-local-expiry"];
        }
        break;
      case EventKind::kWriteSent:
        writing.insert({r.holder, r.key, r.token});
        break;
      case EventKind::kWriteAccepted:
      case EventKind::kWriteRefused:
        writing.erase({r.holder, r.key, r.token});
        break;
      case EventKind::kStoreCheckpointRefused:
        ++marks["checkpoint-refused"];
        break;
      case EventKind::kStepStarted:
        ++running[{r.key, r.token}];
        break;
      case EventKind::kStepEnded:
        --running[{r.key, r.token}];
        break;
      case EventKind::kStoreLeaseGranted:
        if (r.token > 1 && running[{r.key, r.token - 1}] > 0) ++marks["takeover-mid-step"];
        granted[r.key] = {r.token, false};
        break;
      case EventKind::kRenewSent:
        renewing.insert({r.holder, r.key});
        break;
      case EventKind::kLeaseRenewed:
        // The reply reached the holder later after the store's renewal than the drift margin
        // covers: confirmedUntil must count from the send, never from this receive.
        if (auto it = store_renewed.find({r.holder, r.key, r.token});
            it != store_renewed.end() && e.time_ns - it->second > margin_ns) {
          ++marks["renewal-reply-late"];
        }
        [[fallthrough]];
      case EventKind::kRenewRefused:
        renewing.erase({r.holder, r.key});
        if (r.kind == EventKind::kRenewRefused && r.detail == "expired") {
          ++marks["renewal-raced-expiry"];
        }
        break;
      case EventKind::kLeaseLost:
        lost.try_emplace({r.holder, r.key, r.token}, r.detail);
        if (r.detail == "local-expiry" && renewing.contains({r.holder, r.key})) {
          ++marks["renewal-raced-expiry"];
        }
        if (r.detail == "local-expiry" && writing.contains({r.holder, r.key, r.token})) {
          ++marks["expiry-during-write"];
        }
        renewing.erase({r.holder, r.key});
        break;
      case EventKind::kRemoteWaitBegan:
        waiting.insert({r.holder, r.key});
        for (const auto& [key_token, count] : running) {
          if (key_token.first == r.key && count > 0) {
            ++marks["yield-deferred"];  // a step of the tree runs: the wait must keep the lease
            break;
          }
        }
        break;
      case EventKind::kRemoteWaitEnded:
        waiting.erase({r.holder, r.key});
        break;
      case EventKind::kLeaseReleased:
        if (waiting.contains({r.holder, r.key})) ++marks["lease-yielded"];
        break;
      case EventKind::kWithdrawalRefused:
        // A withdrawal that met its tree live and not running here (before a step, between steps,
        // in a checkpoint or a remote-children wait, on another instance): the runtime refuses it
        // and its body, which marks the moment, never runs; the refusal itself is the mark.
        ++marks["withdrawal-refused-while-live"];
        break;
      default:
        break;
    }
  }
  return marks;
}

std::map<std::string, std::int64_t> sum_figures(const sim::World& world) {
  std::map<std::string, std::int64_t> figures;
  for (const sim::HistoryEvent& e : world.history().events()) {
    if (e.world != sim::WorldEventKind::kMeasure) continue;
    const std::size_t space = e.detail.rfind(' ');
    check(space != std::string::npos, "a measure is 'name value'");
    const std::string value = e.detail.substr(space + 1);
    std::int64_t number = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
    check(error == std::errc(), "a measure's value is an integer");
    check(end == value.data() + value.size(), "a measure's value is only an integer");
    figures[e.detail.substr(0, space)] += number;
  }
  return figures;
}

}  // namespace fencesim::properties
