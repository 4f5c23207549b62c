// What a run that stopped short was stuck on: the terms of a liveness failure's signature
// (RunSummary::stuck). Two liveness bugs are told apart by these, so each term names a role and a
// state in fixed words, never an id: the first word of a fiber's name ("tree", "branch", "renew"),
// its node's kind, what it waits on; a tree's placement, checkpoint, lease and last event kind.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "sim/node_kind.h"
#include "sim/tree_passes.h"
#include "sim/world.h"
#include "sim/world_incarnation.h"

namespace fencesim::sim {

namespace {

// A fiber's role: the runtime names its fibers "ROLE ids" ("tree tenant-1/order-1",
// "renew tenant-1/order-1").
std::string_view role_of(std::string_view fiber_name) {
  return fiber_name.substr(0, fiber_name.find(' '));
}

// Kinds that repeat while a tree waits, whatever it waits on: the last of them says nothing of
// where the tree stopped.
bool periodic(runtime::EventKind kind) {
  using runtime::EventKind;
  return kind == EventKind::kRenewSent || kind == EventKind::kLeaseRenewed ||
         kind == EventKind::kStoreLeaseRenewed;
}

std::vector<std::string> sorted_once(const std::set<std::string>& terms) {
  return {terms.begin(), terms.end()};
}

}  // namespace

std::vector<std::string> World::deadlock_terms() const {
  std::set<std::string> terms;
  for (const Scheduler::StuckFiber& fiber : scheduler_->stuck_fibers()) {
    const std::string_view kind =
        fiber.node < kinds_.size() ? kind_word(kinds_[fiber.node]) : kind_word(NodeKind::kWorld);
    terms.insert(fmt::format("{} ({}) waits on {}", role_of(fiber.name), kind, fiber.waits_on));
  }
  return sorted_once(terms);
}

std::string World::tree_state(const runtime::LeaseKey& key) {
  std::string state;
  const bool root = std::find(submitted_.begin(), submitted_.end(), key) != submitted_.end();
  const std::optional<runtime::Placement> placement = queue_.find(key);
  if (!placement && !placed_.contains(key)) {
    state = root ? "never placed" : "child never placed";
  } else if (root ? (placement && placement->finished) : finished_.contains(key)) {
    state = "placement finished";
  } else {
    state = "placement pending";
  }
  const runtime::Checkpoint checkpoint = checkpoints_->load(key);
  if (checkpoint.tree_completed) {
    state += ", tree completed";
  } else if (checkpoint.cancelled) {
    state += ", cancelled";
  } else {
    state += checkpoint.completed_steps.empty() ? ", no step checkpointed" : ", steps checkpointed";
  }
  // The world reads its own table: omniscient, unrecorded, after the run.
  // What the tree did since the heal (the quiet phase: no fault, every node up), where work left
  // undone is a bug: a tree that passes through again and again is told by how its passes end,
  // never by where the run's end happened to cut the cycle; one stuck inside a pass (or in no
  // pass at all) by the state the end found it in.
  const std::vector<HistoryEvent>& events = history_.events();
  const TreePasses tree = tree_passes(events, key);
  const std::string_view since = tree.since_heal ? "since the heal" : "in the run";
  const int passes = tree.started;
  const std::set<std::string>& given_up = tree.given_up;
  if (passes >= 2) {
    state += fmt::format(", passes repeat {}", since);
    if (given_up.empty()) return state + ", none given up";
    std::string codes;
    for (const std::string& code : given_up) codes += (codes.empty() ? "" : " ") + code;
    return state + ", given up: " + codes;
  }
  state += fmt::format(", {} {}", passes == 0 ? "no pass began" : "one pass began", since);
  // The world reads its own table: omniscient, unrecorded, after the run.
  std::optional<runtime::Lease> lease;
  try {
    lease = leases_->read(key);
  } catch (const std::exception&) {
    state += ", lease unreadable";
  }
  if (lease) {
    if (lease->released) {
      state += ", lease released";
    } else if (lease->live_at(store_wall_ns(store_node_))) {
      state += ", lease held";
    } else {
      state += ", lease expired";
    }
  } else {
    state += ", lease never taken";
  }
  // Its last event in the whole run: a pass stuck since before the heal stopped there.
  for (auto it = events.rbegin(); it != events.rend(); ++it) {
    if (it->world != WorldEventKind::kRuntime || periodic(it->runtime.kind)) continue;
    if (!(it->runtime.key == key)) continue;
    return state + fmt::format(", last {} at {}", runtime::to_string(it->runtime.kind),
                               kind_word(kinds_.at(it->node)));
  }
  return state + ", no event";
}

void World::describe_unfinished_trees(RunSummary& summary) {
  std::set<std::string> terms;
  std::vector<runtime::LeaseKey> unfinished;
  for (const runtime::LeaseKey& key : submitted_) {
    if (!tree_ended(key, true)) unfinished.push_back(key);
  }
  for (const runtime::LeaseKey& key : placed_) {
    const bool root = std::find(submitted_.begin(), submitted_.end(), key) != submitted_.end();
    if (!root && !tree_ended(key, false)) unfinished.push_back(key);
  }
  for (const runtime::LeaseKey& key : unfinished) {
    const std::string state = tree_state(key);
    summary.detail +=
        fmt::format("\n  tree {}/{}: {}", key.tenant_id, key.lease_execution_id, state);
    terms.insert("tree: " + state);
  }
  // Every tree ended, yet the run went on to its limit: the watcher never saw it (a bug of the
  // world), or the limit came between the last end and the watcher's next look.
  if (unfinished.empty()) terms.insert("every tree ended");
  summary.stuck = sorted_once(terms);
}

}  // namespace fencesim::sim
