// Cancellation (#360). The truth of a cancel is the store's recording (a kStoreCall with op
// cancel and outcome "recorded"): its time and its place in the history. Each rule below is one
// an honest runtime cannot break, because its checks read the store after the moment the rule
// starts from:
// - a confirmNow() that began after the recording reads the cancel (before its renewal) and
//   throws, so its body never sees "confirmed";
// - a pass that began after the recording loads the checkpoint after it and runs no step, and a
//   holder that saw the cancel (kCancelSeen) starts no step of the tree afterwards;
// - the store refuses the tree's completion once the cancel is recorded;
// - a holder learns of a cancel (kCancelSeen) or ends a cancelled tree (kTreeCancelled) only
//   after its recording, and ends it only after the placement queue finished its placement.
#include "properties/invariants_cancel.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "properties/history_support.h"

namespace fencesim::properties {

using std::string_view_literals::operator""sv;

namespace {

using runtime::EventKind;
using LeaseKey = sim::NameKey;  // the recorded names

struct Recording {
  std::uint64_t index = 0;
  std::int64_t time_ns = 0;
};

class CancelJudge {
 public:
  explicit CancelJudge(std::vector<Violation>& out) : out_(out) {}

  void store_call(const sim::HistoryEvent& e) {
    const sim::StoreCall& call = *e.store;
    if (call.failed) return;
    if (call.op == sim::StoreOp::kCancel && call.outcome == "recorded"sv) {
      recorded_.try_emplace(call.key, Recording{e.index, e.time_ns});
    } else if (call.op == sim::StoreOp::kCommitTree && call.outcome == "committed"sv) {
      if (const Recording* r = recording(call.key)) {
        report(fmt::format("the completion of {} committed (token {}) after its cancel was "
                           "recorded",
                           runtime::to_string(call.key), call.token),
               {r->index, e.index});
      }
    } else if (call.op == sim::StoreOp::kFinish) {
      finished_.insert({call.key, call.from});
    }
  }

  void observed(const sim::HistoryEvent& e) {
    const sim::RuntimeRecord& r = e.runtime;
    if (r.holder != "confirm" || e.detail != "confirmed") return;
    const Recording* rec = recording(r.key);
    // Strictly after: a confirm that began at the very moment of the recording may have read the
    // store before it.
    if (rec == nullptr || r.value <= rec->time_ns) return;
    report(fmt::format("confirmNow() returned to step '{}' of {} (token {}); it began at t={}ns, "
                       "after the tree's cancel was recorded at t={}ns",
                       r.step, runtime::to_string(r.key), r.token, r.value, rec->time_ns),
           {rec->index, e.index});
  }

  void runtime(const sim::HistoryEvent& e) {
    const sim::RuntimeRecord& r = e.runtime;
    switch (r.kind) {
      case EventKind::kCancelSeen:
      case EventKind::kTreeCancelled:
        judge_learned(e);
        if (r.kind == EventKind::kCancelSeen) seen_.try_emplace({r.holder, r.key}, e.index);
        break;
      case EventKind::kTreeStarted:
        if (recording(r.key) != nullptr) late_passes_.try_emplace(held_token(r), e.index);
        break;
      case EventKind::kStepStarted:
        judge_step(e);
        break;
      default:
        break;
    }
  }

 private:
  const Recording* recording(const LeaseKey& key) const {
    auto it = recorded_.find(key);
    return it == recorded_.end() ? nullptr : &it->second;
  }

  void judge_learned(const sim::HistoryEvent& e) {
    const sim::RuntimeRecord& r = e.runtime;
    const bool ended = r.kind == EventKind::kTreeCancelled;
    if (recording(r.key) == nullptr) {
      report(fmt::format("{} {} {} though no cancel of it was recorded", r.holder,
                         ended ? "ended" : "learned of the cancel of", runtime::to_string(r.key)),
             {e.index});
      return;
    }
    if (ended && !finished_.contains({r.key, e.node})) {
      report(fmt::format("{} ended cancelled tree {} before its placement was finished", r.holder,
                         runtime::to_string(r.key)),
             {e.index});
    }
  }

  void judge_step(const sim::HistoryEvent& e) {
    const sim::RuntimeRecord& r = e.runtime;
    if (auto seen = seen_.find({r.holder, r.key}); seen != seen_.end()) {
      report(fmt::format("{} started step '{}' of {} after it saw the tree's cancel", r.holder,
                         r.step, runtime::to_string(r.key)),
             {seen->second, e.index});
      return;
    }
    if (auto late = late_passes_.find(held_token(r)); late != late_passes_.end()) {
      report(fmt::format("{} started step '{}' of {} in a pass (token {}) that began after the "
                         "tree's cancel was recorded",
                         r.holder, r.step, runtime::to_string(r.key), r.token),
             {recording(r.key)->index, late->second, e.index});
    }
  }

  void report(std::string message, std::vector<std::uint64_t> events) {
    out_.push_back(violation(CancelIsFinal{}.name(), std::move(message), std::move(events)));
  }

  std::vector<Violation>& out_;
  std::map<sim::NameKey, Recording> recorded_;
  std::set<std::pair<LeaseKey, sim::NodeId>> finished_;
  std::map<std::pair<std::string, LeaseKey>, std::uint64_t> seen_;  // (holder, tree) -> event
  std::unordered_map<HeldToken, std::uint64_t, KeyHash> late_passes_;  // passes begun after the recording
};

}  // namespace

void check_cancel_is_final(const std::vector<sim::HistoryEvent>& events,
                           std::vector<Violation>& out) {
  CancelJudge judge(out);
  for (const sim::HistoryEvent& e : events) {
    if (e.world == sim::WorldEventKind::kStoreCall && e.store) {
      judge.store_call(e);
    } else if (e.world == sim::WorldEventKind::kObserved) {
      judge.observed(e);
    } else if (e.world == sim::WorldEventKind::kRuntime) {
      judge.runtime(e);
    }
  }
}

void CancelIsFinal::check(const sim::World& world, std::vector<Violation>& out) const {
  check_cancel_is_final(world.history().events(), out);
}

}  // namespace fencesim::properties
