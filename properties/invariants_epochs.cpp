// Per-key epochs, judged at the lease store: the truth the fence rests on.
#include <fmt/format.h>

#include <map>

#include "properties/invariants_builtin.h"
#include "sim/lease_terms.h"

namespace fencesim::properties {

using runtime::EventKind;
using sim::kLastSafeToken;

void PerKeyEpochs::check(const sim::World& world, std::vector<Violation>& out) const {
  // Renewals are conditional-renewal's: its events name the requester, so a renewal the store
  // should have refused is a stolen or stale renewal, not a new epoch.
  struct KeyState {
    runtime::Token epoch = 0;
    std::uint64_t granted_at = 0;
  };
  std::map<sim::NameKey, KeyState> keys;
  for (const sim::HistoryEvent& e : world.history().events()) {
    // A row the store held before the run: the key's epochs go on from its token.
    if (e.world == sim::WorldEventKind::kStoreCall && e.store &&
        e.store->op == sim::StoreOp::kRestore && e.store->lease) {
      keys[e.store->key] = KeyState{e.store->lease->token, e.index};
      continue;
    }
    if (e.world != sim::WorldEventKind::kRuntime) continue;
    const sim::RuntimeRecord& r = e.runtime;
    if (r.kind == EventKind::kStoreLeaseGranted) {
      KeyState& key = keys[r.key];
      if (r.token > kLastSafeToken) {
        out.push_back(Violation{std::string(name()),
                                fmt::format("{} granted token {}, past 2^53-1: not a safe integer",
                                            runtime::to_string(r.key), r.token),
                                {e.index}});
      }
      if (r.token != key.epoch + 1) {
        // A key's first grant has no grant before it to point at.
        std::vector<std::uint64_t> events{e.index};
        if (key.epoch != 0) events.insert(events.begin(), key.granted_at);
        out.push_back(Violation{std::string(name()),
                                fmt::format("{} granted token {} after epoch {}",
                                            runtime::to_string(r.key), r.token, key.epoch),
                                std::move(events)});
      }
      key = KeyState{r.token, e.index};
    }
  }
}

}  // namespace fencesim::properties
