// See invariants_confirm_cancel_after.h. Grants are kept in the store's order, each with the index
// of its record; the cancel by the index of its recording: "recorded before the grant" is the
// history's order (one true-time order across both stores).
#include "properties/invariants_confirm_cancel_after.h"

#include <fmt/format.h>

#include <unordered_map>
#include <vector>

#include "properties/history_support.h"
#include "properties/renewal_grants.h"

namespace fencesim::properties {

using std::string_view_literals::operator""sv;

void check_confirm_cancel_after_renewal(const std::vector<sim::HistoryEvent>& events,
                                        std::vector<Violation>& out) {
  RenewalGrants grants;
  // tree -> the index of the first recording of its cancel.
  std::unordered_map<sim::NameKey, std::uint64_t, KeyHash> cancelled;
  for (const sim::HistoryEvent& e : events) {
    if (e.world == sim::WorldEventKind::kStoreCall && e.store) {
      grants.add(e);
      const sim::StoreCall& call = *e.store;
      if (!call.failed && call.op == sim::StoreOp::kCancel && call.outcome == "recorded"sv) {
        cancelled.try_emplace(call.key, e.index);
      }
      continue;
    }
    if (e.world != sim::WorldEventKind::kObserved || e.runtime.holder != "confirm" ||
        e.detail != "confirmed") {
      continue;
    }
    const sim::RuntimeRecord& r = e.runtime;
    auto cancel = cancelled.find(r.key);
    if (cancel == cancelled.end()) continue;
    const std::int64_t began_ns = r.value;
    // The earliest grant that could have answered the confirm (strict-confirm judges that one
    // exists): sent from the body's node after the confirm began, before it returned.
    const RenewalGrants::Grant* answer =
        grants.first_answer(r.key, r.token, e.node, began_ns, e.time_ns);
    if (answer == nullptr) continue;  // strict-confirm's
    const std::uint64_t earliest = answer->index;
    if (cancel->second > earliest) continue;
    out.push_back(violation(
        ConfirmCancelAfterRenewal{}.name(),
        fmt::format("confirmNow() returned to step '{}' of {} under token {} (began at t={}ns) "
                    "though the tree's cancel was recorded (event #{}) before the lease store "
                    "granted any renewal that answered it (event #{}): its cancel check after the "
                    "renewal would have found it",
                    r.step, runtime::to_string(r.key.lease_key()), r.token, began_ns,
                    cancel->second, earliest),
        {cancel->second, earliest, e.index}));
  }
}

void ConfirmCancelAfterRenewal::check(const sim::World& world, std::vector<Violation>& out) const {
  check_confirm_cancel_after_renewal(world.history().events(), out);
}

}  // namespace fencesim::properties
