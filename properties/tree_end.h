#pragma once
// When a tree ended, from the stores' records alone (never from the runtime's belief or events).
// ADR-0023's "a withdrawal made after the tree ended" has two ends in the runtime's model (#360):
// - a completed tree ended when the checkpoint store committed its completion (a commit-tree it
//   answered "committed");
// - a cancelled tree ended at its cancelled pass's finish: the placement queue finished it after
//   the checkpoint store recorded its cancel. A recorded cancel alone is not the end: the holder
//   learns of it only at its next check and may still be running a step.
// A tree's completion and its cancel exclude each other at the store, so a finish after a recorded
// cancel can only be the cancelled pass's.
#include <cstdint>
#include <map>
#include <optional>
#include <set>

#include "sim/history.h"

namespace fencesim::properties {

using std::string_view_literals::operator""sv;

class TreeEnds {
 public:
  // Feed every event of the history, in order.
  void add(const sim::HistoryEvent& e) {
    if (e.world != sim::WorldEventKind::kStoreCall || !e.store || e.store->failed) return;
    const sim::StoreCall& call = *e.store;
    if (call.op == sim::StoreOp::kCommitTree && call.outcome == "committed"sv) {
      ended_.try_emplace(call.key, e.index);
    } else if (call.op == sim::StoreOp::kCancel && call.outcome == "recorded"sv) {
      cancelled_.insert(call.key);
    } else if (call.op == sim::StoreOp::kFinish && cancelled_.contains(call.key)) {
      ended_.try_emplace(call.key, e.index);
    }
  }
  // The index of the store record that ended `key`, if it ended so far.
  std::optional<std::uint64_t> ended(const sim::NameKey& key) const {
    const auto it = ended_.find(key);
    if (it == ended_.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::set<sim::NameKey> cancelled_;  // the checkpoint store recorded the tree's cancel
  std::map<sim::NameKey, std::uint64_t> ended_;
};

}  // namespace fencesim::properties
