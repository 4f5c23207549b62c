// See invariants_cancel_reach.h.
#include "properties/invariants_cancel_reach.h"

#include <fmt/format.h>

#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "properties/history_support.h"

namespace fencesim::properties {

using std::string_view_literals::operator""sv;

namespace {

using runtime::EventKind;
using LeaseKey = sim::NameKey;  // the recorded names

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

// A pass at a node over a tree: from its kTreeStarted to its end (completed, abandoned, cancelled,
// or its process crashed), and when it reported that it learned of the cancel.
struct PassSpan {
  sim::NodeId node = sim::kWorldNode;
  LeaseKey key;
  std::string holder;
  std::uint64_t started = 0;
  std::int64_t started_ns = 0;
  std::int64_t ended_ns = kNever;
  std::int64_t seen_ns = kNever;
};

}  // namespace

void check_cancel_aborts_steps(const std::vector<sim::HistoryEvent>& events,
                               std::vector<Violation>& out) {
  // (node, tree) -> the holder's kCancelSeen, for the pass running there now.
  std::map<std::pair<sim::NodeId, LeaseKey>, std::uint64_t> seen;
  for (const sim::HistoryEvent& e : events) {
    if (e.world == sim::WorldEventKind::kNodeCrashed) {
      std::erase_if(seen, [&](const auto& entry) { return entry.first.first == e.node; });
      continue;
    }
    if (e.world == sim::WorldEventKind::kRuntime) {
      const sim::RuntimeRecord& r = e.runtime;
      // A new pass has a cancel of its own to learn of (it reads it at its start).
      if (r.kind == EventKind::kTreeStarted) seen.erase({e.node, r.key});
      if (r.kind == EventKind::kCancelSeen) seen.try_emplace({e.node, r.key}, e.index);
      continue;
    }
    if (e.world != sim::WorldEventKind::kObserved || e.runtime.holder != "signal" ||
        e.detail != "live") {
      continue;
    }
    auto it = seen.find({e.node, e.runtime.key});
    if (it == seen.end()) continue;
    out.push_back(violation(
        CancelAbortsSteps{}.name(),
        fmt::format("step '{}' of {} found its abort signal not aborted after its holder learned "
                    "of the tree's cancel",
                    e.runtime.step, runtime::to_string(e.runtime.key.lease_key())),
        {it->second, e.index}));
  }
}

void CancelAbortsSteps::check(const sim::World& world, std::vector<Violation>& out) const {
  check_cancel_aborts_steps(world.history().events(), out);
}

void check_cancel_seen_in_time(const std::vector<sim::HistoryEvent>& events, std::int64_t bound_ns,
                               std::vector<Violation>& out) {
  std::optional<std::int64_t> quiet_ns;
  std::map<sim::NameKey, std::pair<std::uint64_t, std::int64_t>> recorded;  // first recording
  std::vector<PassSpan> passes;
  std::map<std::pair<sim::NodeId, LeaseKey>, std::size_t> open;  // -> index in passes
  std::int64_t last_ns = 0;
  for (const sim::HistoryEvent& e : events) {
    last_ns = e.time_ns;
    switch (e.world) {
      case sim::WorldEventKind::kPhase:
        if (e.detail == "quiet" && !quiet_ns) quiet_ns = e.time_ns;
        break;
      case sim::WorldEventKind::kStoreCall:
        if (e.store && !e.store->failed && e.store->op == sim::StoreOp::kCancel &&
            e.store->outcome == "recorded"sv) {
          recorded.try_emplace(e.store->key, e.index, e.time_ns);
        }
        break;
      case sim::WorldEventKind::kNodeCrashed:
        for (auto it = open.begin(); it != open.end();) {
          if (it->first.first != e.node) {
            ++it;
            continue;
          }
          passes[it->second].ended_ns = e.time_ns;
          it = open.erase(it);
        }
        break;
      case sim::WorldEventKind::kRuntime: {
        const sim::RuntimeRecord& r = e.runtime;
        // Only a pass's start, its learning of the cancel and its end matter here: most runtime
        // events are neither, and a lookup for each cost more than the rest of this walk.
        if (r.kind != EventKind::kTreeStarted && r.kind != EventKind::kCancelSeen &&
            r.kind != EventKind::kTreeCompleted && r.kind != EventKind::kTreeAbandoned &&
            r.kind != EventKind::kTreeCancelled) {
          break;
        }
        const auto at = std::make_pair(e.node, r.key);
        if (r.kind == EventKind::kTreeStarted) {
          if (auto it = open.find(at); it != open.end()) passes[it->second].ended_ns = e.time_ns;
          open[at] = passes.size();
          passes.push_back(
              PassSpan{e.node, at.second, r.holder.str(), e.index, e.time_ns, kNever, kNever});
        } else if (auto it = open.find(at); it != open.end()) {
          PassSpan& pass = passes[it->second];
          if (r.kind == EventKind::kCancelSeen && pass.seen_ns == kNever) pass.seen_ns = e.time_ns;
          if (r.kind == EventKind::kTreeCompleted || r.kind == EventKind::kTreeAbandoned ||
              r.kind == EventKind::kTreeCancelled) {
            pass.ended_ns = e.time_ns;
            open.erase(it);
          }
        }
        break;
      }
      default:
        break;
    }
  }
  if (!quiet_ns) return;
  for (const PassSpan& pass : passes) {
    auto rec = recorded.find(pass.key);
    if (rec == recorded.end()) continue;
    const std::int64_t deadline = std::max(rec->second.second, *quiet_ns) + bound_ns;
    // A pass that began within the last second before the deadline may still be reading the
    // cancel at its start; a history that ends before the deadline is not judged there.
    if (deadline > last_ns || pass.started_ns > deadline - runtime::kSecond) continue;
    if (pass.ended_ns <= deadline || pass.seen_ns <= deadline) continue;
    out.push_back(violation(
        CancelSeenInTime{}.name(),
        fmt::format("{}'s pass over {} had not learned of the tree's cancel (recorded at t={}ns) "
                    "by t={}ns, {} ms into the quiet phase or after the recording, and went on",
                    pass.holder, runtime::to_string(pass.key), rec->second.second, deadline,
                    bound_ns / runtime::kMillisecond),
        {rec->second.first, pass.started}));
  }
}

void CancelSeenInTime::check(const sim::World& world, std::vector<Violation>& out) const {
  const sim::WorldOptions& options = world.options();
  check_cancel_seen_in_time(
      world.history().events(),
      options.lease.renew_interval_ns + options.network.rpc_timeout_ns + runtime::kSecond, out);
}

}  // namespace fencesim::properties
