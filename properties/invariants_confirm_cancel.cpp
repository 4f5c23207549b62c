// See invariants_confirm_cancel.h. A read the store handled is one it recorded: a read lost on its
// way there never reaches the record, and a read whose reply was lost on the way back is counted as
// an answer (the oracle cannot tell; it then lets the confirm pass, never accuses it wrongly).
#include "properties/invariants_confirm_cancel.h"

#include <fmt/format.h>

#include <unordered_map>
#include <utility>

#include "properties/history_support.h"

namespace fencesim::properties {

void check_confirm_reads_cancel(const std::vector<sim::HistoryEvent>& events,
                                std::vector<Violation>& out) {
  // (tree, requester node) -> the send times of the checkpoint reads the store handled, in the
  // store's order (not their send order: the network reorders).
  // Only looked up: hashed (KeyHash).
  std::unordered_map<std::pair<sim::NameKey, sim::NodeId>, std::vector<std::int64_t>, KeyHash> reads;
  for (const sim::HistoryEvent& e : events) {
    if (e.world == sim::WorldEventKind::kStoreCall && e.store) {
      const sim::StoreCall& call = *e.store;
      if (call.op == sim::StoreOp::kLoad && !call.failed) {
        reads[{call.key, call.from}].push_back(call.sent_ns);
      }
      continue;
    }
    if (e.world != sim::WorldEventKind::kObserved || e.runtime.holder != "confirm" ||
        e.detail != "confirmed") {
      continue;
    }
    const sim::RuntimeRecord& r = e.runtime;
    const std::int64_t began_ns = r.value;
    bool answered = false;
    if (auto it = reads.find({r.key, e.node}); it != reads.end()) {
      for (auto sent = it->second.rbegin(); sent != it->second.rend(); ++sent) {
        if (*sent >= began_ns && *sent <= e.time_ns) {
          answered = true;
          break;
        }
      }
    }
    if (answered) continue;
    out.push_back(violation(
        ConfirmReadsCancel{}.name(),
        fmt::format("confirmNow() returned to step '{}' of {} under token {} (began at t={}ns) "
                    "though the checkpoint store answered no read of the tree's cancel sent since",
                    r.step, runtime::to_string(r.key.lease_key()), r.token, began_ns),
        {e.index}));
  }
}

void ConfirmReadsCancel::check(const sim::World& world, std::vector<Violation>& out) const {
  check_confirm_reads_cancel(world.history().events(), out);
}

}  // namespace fencesim::properties
