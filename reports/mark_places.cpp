#include "reports/mark_places.h"

#include <map>
#include <set>
#include <tuple>

#include "runtime/errors.h"

namespace fencesim::reports {

namespace {

using runtime::EventKind;
using HolderKey = std::pair<std::string, runtime::LeaseKey>;
using HolderToken = std::tuple<std::string, runtime::LeaseKey, runtime::Token>;

// The state count_marks keeps while it reads a history, with the same rules; each mark is placed
// at the event that makes count_marks count it.
class Placer {
 public:
  explicit Placer(const sim::World& world)
      : world_(world), margin_ns_(world.options().lease.drift_margin_ns()) {}

  std::vector<PlacedMark> run() {
    for (const sim::HistoryEvent& e : world_.history().events()) {
      index_ = e.index;
      if (e.world == sim::WorldEventKind::kMark) place(e.detail);
      if (e.world == sim::WorldEventKind::kNodeRestarted) {
        place(world_.node_kind(e.node) == sim::NodeKind::kInstance ? "instance-restarted"
                                                                   : "store-restarted");
      }
      cancel_event(e);
      if (e.world == sim::WorldEventKind::kRuntime) runtime_event(e);
    }
    return std::move(placed_);
  }

 private:
  void place(std::string name) { placed_.push_back(PlacedMark{std::move(name), index_}); }

  // Cancellation's moments, as count_marks counts them (properties/marks.cpp).
  void cancel_event(const sim::HistoryEvent& e) {
    if (e.world == sim::WorldEventKind::kStoreCall && e.store &&
        e.store->op == sim::StoreOp::kCancel && e.store->outcome == "recorded") {
      cancels_.try_emplace(e.store->key, e.time_ns);
    } else if (e.world == sim::WorldEventKind::kObserved && e.runtime.holder == "confirm") {
      auto it = cancels_.find(e.runtime.key);
      if (it != cancels_.end() && e.runtime.value < it->second) place("cancel-during-confirm");
    } else if (e.world == sim::WorldEventKind::kRuntime) {
      if (e.runtime.kind == EventKind::kCancelSeen) place("cancel-seen");
      if (e.runtime.kind == EventKind::kTreeCancelled) place("tree-cancelled");
    }
  }

  void runtime_event(const sim::HistoryEvent& e) {
    const sim::RuntimeRecord& r = e.runtime;
    switch (r.kind) {
      case EventKind::kSinkRefused:
        place("stale-write-refused");
        break;
      case EventKind::kSinkDeduplicated:
        place("rerun-deduplicated");
        sink_accepted(r);
        break;
      case EventKind::kSinkApplied:
        sink_accepted(r);
        break;
      case EventKind::kStoreRenewRefused:
        store_renew_refused(r);
        break;
      case EventKind::kStoreLeaseReleased:
        if (auto it = granted_.find(r.key); it != granted_.end() && it->second.first == r.token) {
          it->second.second = true;
        }
        break;
      case EventKind::kStoreLeaseRenewed:
        store_renewed_[{r.holder, r.key, r.token}] = e.time_ns;
        break;
      case EventKind::kErrorClassified:
        error_classified(r);
        break;
      case EventKind::kWriteSent:
        writing_.insert({r.holder, r.key, r.token});
        break;
      case EventKind::kWriteAccepted:
      case EventKind::kWriteRefused:
        writing_.erase({r.holder, r.key, r.token});
        break;
      case EventKind::kStoreCheckpointRefused:
        place("checkpoint-refused");
        break;
      default:
        lease_event(e);
        break;
    }
  }

  // Lease, step and wait events: the marks about takeovers, renewals, expiries and yields.
  void lease_event(const sim::HistoryEvent& e) {
    const sim::RuntimeRecord& r = e.runtime;
    switch (r.kind) {
      case EventKind::kStepStarted:
        ++running_[{r.key, r.token}];
        break;
      case EventKind::kStepEnded:
        --running_[{r.key, r.token}];
        break;
      case EventKind::kStoreLeaseGranted:
        if (r.token > 1 && running_[{r.key, r.token - 1}] > 0) place("takeover-mid-step");
        granted_[r.key] = {r.token, false};
        break;
      case EventKind::kRenewSent:
        renewing_.insert({r.holder, r.key});
        break;
      case EventKind::kLeaseRenewed:
        if (auto it = store_renewed_.find({r.holder, r.key, r.token});
            it != store_renewed_.end() && e.time_ns - it->second > margin_ns_) {
          place("renewal-reply-late");
        }
        renewing_.erase({r.holder, r.key});
        break;
      case EventKind::kRenewRefused:
        renewing_.erase({r.holder, r.key});
        if (r.detail == "expired") place("renewal-raced-expiry");
        break;
      case EventKind::kLeaseLost:
        lease_lost(r);
        break;
      case EventKind::kRemoteWaitBegan:
        remote_wait_began(r);
        break;
      case EventKind::kRemoteWaitEnded:
        waiting_.erase({r.holder, r.key});
        break;
      case EventKind::kLeaseReleased:
        if (waiting_.contains({r.holder, r.key})) place("lease-yielded");
        break;
      case EventKind::kWithdrawalRefused:
        place("withdrawal-refused-while-live");
        break;
      default:
        break;
    }
  }

  void sink_accepted(const sim::RuntimeRecord& r) {
    const std::string tenant = r.scope_key.substr(0, r.scope_key.find(':'));
    auto& tokens = accepted_[{r.holder, tenant}];
    tokens[r.scope_key] = r.token;
    for (const auto& [scope, token] : tokens) {
      if (scope != r.scope_key && token != r.token) {
        place("independent-epochs");
        break;
      }
    }
  }

  void store_renew_refused(const sim::RuntimeRecord& r) {
    place("late-renewal-refused");
    if (auto it = granted_.find(r.key); r.detail == "stale" && it != granted_.end() &&
                                        it->second.first > r.token && !it->second.second) {
      place("stale-renewal-refused");
    }
  }

  void error_classified(const sim::RuntimeRecord& r) {
    if (r.detail != runtime::ExecutionFencedError::kCode) return;
    auto it = lost_.find({r.holder, r.key, r.token});
    if (it != lost_.end() && it->second == "local-expiry") place("fenced-after-local-expiry");
  }

  void lease_lost(const sim::RuntimeRecord& r) {
    lost_.try_emplace({r.holder, r.key, r.token}, r.detail);
    if (r.detail == "local-expiry" && renewing_.contains({r.holder, r.key})) {
      place("renewal-raced-expiry");
    }
    if (r.detail == "local-expiry" && writing_.contains({r.holder, r.key, r.token})) {
      place("expiry-during-write");
    }
    renewing_.erase({r.holder, r.key});
  }

  void remote_wait_began(const sim::RuntimeRecord& r) {
    waiting_.insert({r.holder, r.key});
    for (const auto& [key_token, count] : running_) {
      if (key_token.first == r.key && count > 0) {
        place("yield-deferred");
        break;
      }
    }
  }

  std::map<runtime::LeaseKey, std::int64_t> cancels_;  // true time of each recorded cancel
  const sim::World& world_;
  const runtime::Nanoseconds margin_ns_;
  std::uint64_t index_ = 0;
  std::vector<PlacedMark> placed_;
  std::map<std::pair<runtime::LeaseKey, runtime::Token>, int> running_;
  std::set<HolderKey> renewing_;
  std::set<HolderToken> writing_;
  std::set<HolderKey> waiting_;
  std::map<HolderToken, std::string> lost_;
  std::map<runtime::LeaseKey, std::pair<runtime::Token, bool>> granted_;
  std::map<HolderToken, std::int64_t> store_renewed_;
  std::map<std::pair<std::string, std::string>, std::map<std::string, runtime::Token>> accepted_;
};

}  // namespace

std::vector<PlacedMark> place_marks(const sim::World& world) {
  return Placer(world).run();
}

}  // namespace fencesim::reports
