#include "properties/marks.h"

#include <set>

namespace fencesim::properties {

using runtime::EventKind;

std::map<std::string, std::uint64_t> count_marks(const sim::World& world) {
  std::map<std::string, std::uint64_t> marks;
  // Steps running per (key, token): started and not yet ended.
  std::map<std::pair<runtime::LeaseKey, runtime::Token>, int> running;
  std::set<std::pair<std::string, runtime::LeaseKey>> renewing;  // (holder, key) renew in flight
  for (const sim::HistoryEvent& e : world.history().events()) {
    if (e.world != sim::WorldEventKind::kRuntime) continue;
    const runtime::RuntimeEvent& r = e.runtime;
    switch (r.kind) {
      case EventKind::kSinkRefused: ++marks["stale-write-refused"]; break;
      case EventKind::kStoreCheckpointRefused: ++marks["checkpoint-refused"]; break;
      case EventKind::kStepStarted: ++running[{r.key, r.token}]; break;
      case EventKind::kStepEnded: --running[{r.key, r.token}]; break;
      case EventKind::kStoreLeaseGranted:
        if (r.token > 1 && running[{r.key, r.token - 1}] > 0) ++marks["takeover-mid-step"];
        break;
      case EventKind::kRenewSent: renewing.insert({r.holder, r.key}); break;
      case EventKind::kLeaseRenewed:
      case EventKind::kRenewRefused:
        renewing.erase({r.holder, r.key});
        if (r.kind == EventKind::kRenewRefused && r.detail == "expired") {
          ++marks["renewal-raced-expiry"];
        }
        break;
      case EventKind::kLeaseLost:
        if (r.detail == "local-expiry" && renewing.contains({r.holder, r.key})) {
          ++marks["renewal-raced-expiry"];
        }
        renewing.erase({r.holder, r.key});
        break;
      case EventKind::kRemoteWaitBegan: break;
      case EventKind::kLeaseReleased: break;
      default: break;
    }
  }
  return marks;
}

}  // namespace fencesim::properties
