// pass-ends-as-it-went (properties/invariants_after_loss.h): how a pass ended agrees with what
// happened to its lease during it. A yield gives the lease back; only a loss the holder reported,
// a refusal that reached it, or a take refused (the retake after a yield found the key taken, or
// the store failed it: the key's epochs are spent)
// lets a pass end as a lease loss; so does a strict confirm that threw (its renewal was not
// granted: the workload's own record of what the confirm returned).
#include <fmt/format.h>

#include <map>
#include <optional>
#include <unordered_map>

#include "properties/error_codes.h"
#include "properties/history_support.h"
#include "properties/invariants_after_loss.h"

namespace fencesim::properties {

using runtime::EventKind;

namespace {

struct PassState {
  std::uint64_t started = 0;
  sim::NodeId node = sim::kWorldNode;
  std::optional<std::uint64_t> lost;         // the first sign that the pass lost a lease
  std::optional<std::uint64_t> cancel_seen;  // the first kCancelSeen of the pass
  // The pass's last give-back of its lease not followed by a take: a pass that ends its cancelled
  // tree must do it under its lease, or the placement is finished beside whoever took the tree.
  std::optional<std::uint64_t> released;
};

bool loses_a_lease(const sim::RuntimeRecord& r) {
  switch (r.kind) {
    case EventKind::kLeaseLost:
    case EventKind::kRenewRefused:
    case EventKind::kWriteRefused:
    case EventKind::kTakeRefused:
      return true;
    case EventKind::kCheckpointRefused:
      return r.detail != "cancelled";
    default:
      return false;
  }
}

// The workload's own record of a confirmNow() that threw (scenarios/workload.h, confirm_now),
// other than with the tree's cancel (ExecutionCancelledError: "execution cancelled: ...").
bool is_failed_confirm(const sim::HistoryEvent& e) {
  return e.world == sim::WorldEventKind::kObserved && e.runtime.holder == "confirm" &&
         e.detail.starts_with("error:") && !e.detail.starts_with("error: execution cancelled");
}

}  // namespace

void check_pass_ends_as_it_went(const std::vector<sim::HistoryEvent>& events,
                                std::vector<Violation>& out) {
  const std::string_view name = PassEndsAsItWent{}.name();
  std::map<std::pair<sim::Name, sim::NameKey>, PassState> passes;
  std::unordered_map<HeldToken, std::uint64_t, KeyHash> lost_tokens;  // -> the first sign of the token's loss
  for (const sim::HistoryEvent& e : events) {
    if (is_failed_confirm(e)) {
      // A strict confirm that was not granted throws execution.lease-lost without a loss of the
      // lease (issue 9 item 1): a lease loss for the pass of that tree on that node.
      for (auto& [who, pass] : passes) {
        if (who.second == e.runtime.key && pass.node == e.node && !pass.lost) pass.lost = e.index;
      }
      continue;
    }
    if (const sim::StoreCall* take = failed_take(e)) {
      // A take refused: the retake after a yield is over.
      auto it = passes.find({take->holder, take->key});
      if (it != passes.end() && !it->second.lost) it->second.lost = e.index;
      continue;
    }
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) continue;
    const bool loss = loses_a_lease(*r);
    if (loss) lost_tokens.try_emplace(held_token(*r), e.index);
    if (r->kind == EventKind::kTreeStarted) {
      // The lease the pass starts with may be lost already (a take whose reply came back after
      // the lease's local expiry: the holder's loss comes before the pass's start).
      std::optional<std::uint64_t> lost;
      if (auto l = lost_tokens.find(held_token(*r)); l != lost_tokens.end()) lost = l->second;
      passes[{r->holder, r->key}] = PassState{e.index, e.node, lost, std::nullopt, std::nullopt};
      continue;
    }
    if (r->kind == EventKind::kLeaseReleased || r->kind == EventKind::kLeaseTaken) {
      auto it = passes.find({r->holder, r->key});
      if (it != passes.end()) {
        it->second.released =
            r->kind == EventKind::kLeaseReleased ? std::optional(e.index) : std::nullopt;
      }
      continue;
    }
    const bool end = r->kind == EventKind::kTreeAbandoned || r->kind == EventKind::kTreeCompleted ||
                     r->kind == EventKind::kTreeCancelled;
    if (!loss && !end && r->kind != EventKind::kCancelSeen) continue;
    auto it = passes.find({r->holder, r->key});
    if (it == passes.end()) continue;
    PassState& pass = it->second;
    if (loss) {
      if (!pass.lost) pass.lost = e.index;
      continue;
    }
    if (r->kind == EventKind::kCancelSeen) {
      if (!pass.cancel_seen) pass.cancel_seen = e.index;
      continue;
    }
    const PassState ended = pass;
    passes.erase(it);
    if (r->kind == EventKind::kTreeCancelled && ended.released) {
      out.push_back(violation(
          name,
          fmt::format("the pass of {} over {} ended its cancelled tree after it gave its lease "
                      "back: the placement was finished beside whoever took the tree",
                      r->holder, runtime::to_string(r->key)),
          {ended.started, *ended.released, e.index}));
      continue;
    }
    if (ended.lost) continue;  // a pass that lost a lease may end in any way its decision gives
    const std::string_view code = r->detail;
    const std::string where =
        fmt::format("the pass of {} over {}", r->holder, runtime::to_string(r->key));
    if (r->kind == EventKind::kTreeAbandoned && codes::is_lease_loss(code)) {
      out.push_back(violation(
          name,
          fmt::format("{} was abandoned as '{}', but it lost no lease: no loss reported, no "
                      "refusal received, no take refused (a yield gives the lease back)",
                      where, code),
          {ended.started, e.index}));
      continue;
    }
    if (!ended.cancel_seen || r->kind == EventKind::kTreeCancelled) continue;
    if (r->kind == EventKind::kTreeAbandoned && code == codes::kCancelled)
      continue;  // queue unreachable
    out.push_back(violation(
        name,
        fmt::format("{} learned of the tree's cancel and lost no lease, but ended with {} '{}', "
                    "not the cancel: a cancelled holder ends the tree",
                    where, runtime::to_string(r->kind), code),
        {ended.started, *ended.cancel_seen, e.index}));
  }
}

void PassEndsAsItWent::check(const sim::World& world, std::vector<Violation>& out) const {
  check_pass_ends_as_it_went(world.history().events(), out);
}

}  // namespace fencesim::properties
