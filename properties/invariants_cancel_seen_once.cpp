// cancel-seen-once-per-pass (properties/invariants_cancel_seen_once.h): a pass reports kCancelSeen
// at most once, and never after it ended.
#include "properties/invariants_cancel_seen_once.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <vector>

#include "properties/history_support.h"

namespace fencesim::properties {

namespace {

using runtime::EventKind;

struct SeenPass {
  std::uint64_t started = 0;
  std::vector<runtime::Token> tokens;        // the start's, then any retaken after a yield
  std::optional<std::uint64_t> seen;         // its first kCancelSeen
  std::optional<std::uint64_t> ended;        // the event that ended it
  std::int64_t started_ns = 0;               // the true time of its start
  std::int64_t ended_ns = 0;                 // and of its end
  sim::NodeId node = sim::kWorldNode;        // the holder's node
};

bool ends_the_pass(const sim::RuntimeRecord& r) {
  switch (r.kind) {
    case EventKind::kTreeCompleted:
    case EventKind::kTreeAbandoned:
    case EventKind::kTreeCancelled:
    case EventKind::kErrorClassified:  // a pass's decided end (runtime/observer.h)
      return true;
    default:
      return false;
  }
}

}  // namespace

void check_cancel_seen_once_per_pass(const std::vector<sim::HistoryEvent>& events,
                                     std::vector<Violation>& out) {
  const std::string_view name = CancelSeenOncePerPass{}.name();
  std::vector<SeenPass> passes;
  // The pass each (holder, tree) runs now (its index in `passes`), and the pass each held token
  // belongs to (a token is taken once, so it names one pass even after the pass ended).
  std::map<std::pair<sim::Name, sim::NameKey>, std::size_t> running;
  std::map<HeldToken, std::size_t> pass_of;
  // Per (node, tree), the send times of the loads the checkpoint store answered with the tree's
  // cancel, in history order.
  std::map<std::pair<sim::NodeId, sim::NameKey>, std::vector<std::int64_t>> cancelled_loads;
  for (const sim::HistoryEvent& e : events) {
    if (e.world == sim::WorldEventKind::kStoreCall && e.store && !e.store->failed &&
        e.store->op == sim::StoreOp::kLoad && e.store->cancelled) {
      cancelled_loads[{e.store->from, e.store->key}].push_back(e.store->sent_ns);
      continue;
    }
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) continue;
    const std::pair<sim::Name, sim::NameKey> who{r->holder, r->key};
    if (r->kind == EventKind::kTreeStarted) {
      passes.push_back(SeenPass{e.index, {r->token}, std::nullopt, std::nullopt, e.time_ns, 0, e.node});
      running[who] = passes.size() - 1;
      pass_of[held_token(*r)] = passes.size() - 1;
      continue;
    }
    if (r->kind == EventKind::kLeaseTaken) {
      // A retake after a yield: the pass goes on under the new token.
      if (auto it = running.find(who); it != running.end()) {
        passes[it->second].tokens.push_back(r->token);
        pass_of[held_token(*r)] = it->second;
      }
      continue;
    }
    if (ends_the_pass(*r)) {
      if (auto it = running.find(who); it != running.end()) {
        SeenPass& pass = passes[it->second];
        if (!pass.ended) {
          pass.ended = e.index;
          pass.ended_ns = e.time_ns;
        }
        if (r->kind != EventKind::kErrorClassified) running.erase(it);
      }
      continue;
    }
    if (r->kind != EventKind::kCancelSeen) continue;
    std::optional<std::size_t> which;
    if (auto it = pass_of.find(held_token(*r)); it != pass_of.end()) {
      which = it->second;
    } else if (auto run = running.find(who); run != running.end()) {
      which = run->second;
    }
    if (!which) continue;  // no pass of this holder over the tree in the history
    SeenPass& pass = passes[*which];
    // Spelled only for a report.
    const auto where = [&] {
      return fmt::format("the pass of {} over {} (token {})", r->holder,
                         runtime::to_string(r->key), r->token);
    };
    if (pass.ended) {
      // A read of the store the pass sent before it ended (the watcher's, in flight at the end)
      // may come back with the cancel after it: what the pass learned then it read while it ran.
      // A read sent after the end (a watcher that woke after its pass was over and read anyway)
      // is not the pass's.
      bool read_while_running = false;
      if (auto loads = cancelled_loads.find({pass.node, r->key}); loads != cancelled_loads.end()) {
        for (const std::int64_t sent_ns : loads->second) {
          if (sent_ns >= pass.started_ns && sent_ns <= pass.ended_ns) read_while_running = true;
        }
      }
      if (read_while_running && !pass.seen) {
        pass.seen = e.index;
        continue;
      }
      out.push_back(violation(
          name,
          fmt::format("{} reported that it learned of the tree's cancel ({}) after the pass "
                      "ended: a pass learns of its cancel only while it runs",
                      where(), r->detail),
          {pass.started, *pass.ended, e.index}));
    } else if (pass.seen) {
      out.push_back(violation(
          name,
          fmt::format("{} reported that it learned of the tree's cancel ({}) a second time: a "
                      "pass learns of its cancel once",
                      where(), r->detail),
          {pass.started, *pass.seen, e.index}));
    } else {
      pass.seen = e.index;
    }
  }
}

void CancelSeenOncePerPass::check(const sim::World& world, std::vector<Violation>& out) const {
  check_cancel_seen_once_per_pass(world.history().events(), out);
}

}  // namespace fencesim::properties
