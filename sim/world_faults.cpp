// How the world applies the faults of its plan, and heals them for the quiet phase.
#include <fmt/format.h>

#include "runtime/check.h"
#include "runtime/instance.h"
#include "sim/world_incarnation.h"
#include "sim/world.h"

namespace fencesim::sim {

namespace {

// The pauses of a node whose process died, taken out of `pauses`: they end with the process (the
// caller closes their ledger entries once the crash is recorded), and the next process is not
// paused by them.
std::set<std::size_t> take_pauses(std::map<NodeId, std::set<std::size_t>>& pauses, NodeId node) {
  auto paused = pauses.find(node);
  if (paused == pauses.end()) return {};
  std::set<std::size_t> ended = std::move(paused->second);
  pauses.erase(paused);
  return ended;
}

}  // namespace

void World::schedule_faults() {
  for (const Fault& fault : plan_.faults) {
    node_named(fault.node);  // an unknown node is an error now, not a silent no-op later
    if (!fault.peer.empty()) node_named(fault.peer);
    if (fault.trigger && !fault.trigger->at_node.empty()) node_named(fault.trigger->at_node);
    if (fault.trigger) {
      armed_.push_back(Armed{fault, 0});
      if (fault.trigger->aimed()) aims_deadlines_ = true;
    } else {
      scheduler_->at(fault.at_ns, [this, fault] {
        if (!quiet_) apply(fault);
      });
    }
  }
}

void World::apply(const Fault& fault) {
  const NodeId node = node_named(fault.node);
  const std::int64_t now = scheduler_->now_ns();
  const std::int64_t until = now + fault.duration_ns;
  record(node, WorldEventKind::kFaultApplied, describe(fault));
  const std::size_t effect =
      ledger_.open(fault, node, fault.peer.empty() ? kWorldNode : node_named(fault.peer), now);
  // A fault applied from a fiber's step (a protocol trigger) may pause, kill or cut off any node.
  scheduler_->note_touch(kTouchAll);
  switch (fault.kind) {
    case FaultKind::kStall:
    case FaultKind::kStop:
    case FaultKind::kMigrate: {
      // A paused process flushes nothing: what it sends from now on leaves when it resumes
      // (what is already on the wire goes on). A migration also holds the messages in flight
      // from and to the machine, and steps the wall clock when it ends. A store's or sink's
      // requests are handled in callbacks, so holding them is what pauses a store.
      network_->hold_sends(node, until);
      if (fault.kind == FaultKind::kMigrate || kinds_[node] != NodeKind::kInstance) {
        network_->delay_in_flight(node, fault.duration_ns);
      }
      scheduler_->pause_node(node);
      pauses_[node].insert(effect);
      record(node, WorldEventKind::kNodePaused, std::string(to_string(fault.kind)));
      if (fault.kind == FaultKind::kMigrate && fault.amount != 0) ++ledger_.at(effect).chances;
      scheduler_->at(until, [this, node, fault, effect] {
        if (fault.kind == FaultKind::kMigrate) {
          const std::int64_t before = clocks_[node].wall_at(scheduler_->now_ns());
          clocks_[node].step_wall(fault.amount);
          ledger_.at(effect).clock_moved_ns = clocks_[node].wall_at(scheduler_->now_ns()) - before;
        }
        // Another pause of the node still on keeps it paused (a stall inside a stop, a longer
        // migration); a pause a crash ended resumes nothing of the next process.
        std::set<std::size_t>& holding = pauses_[node];
        if (holding.erase(effect) > 0 && holding.empty() && scheduler_->node_paused(node)) {
          scheduler_->resume_node(node);
          record(node, WorldEventKind::kNodeResumed, std::string(to_string(fault.kind)));
          network_->resumed(node);
        }
        close_effect(effect);
      });
      break;
    }
    case FaultKind::kCrash: {
      if (kinds_[node] == NodeKind::kInstance) {
        // A crash can end a process only if one runs (a restart may still be pending).
        const bool alive = incarnations_.contains(node);
        const std::uint64_t incarnation = scheduler_->node_incarnation(node);
        if (alive) ++ledger_.at(effect).chances;
        scheduler_->kill_node(node);
        // The dead process's pauses end with it: what the next process does is none of theirs.
        const std::set<std::size_t> ended_pauses = take_pauses(pauses_, node);
        // A crash also ends a pause: what waited for the old process is delivered to nobody, and
        // the next process's sends are not held to the dead one's planned resume.
        network_->resumed(node);
        network_->forget_holds(node);
        auto it = incarnations_.find(node);
        if (it != incarnations_.end()) {
          crashed_.push_back(std::move(it->second));
          incarnations_.erase(it);
        }
        record(node, WorldEventKind::kNodeCrashed, "memory lost");
        for (const std::size_t pause : ended_pauses) close_effect(pause);
        // What the old process believed about its leases died with it.
        std::erase_if(holder_terms_, [node](const auto& term) { return term.first.first == node; });
        // And so did its passes: none of them will end.
        std::erase_if(open_passes_, [node](const auto& pass) { return pass.first == node; });
        if (alive && !incarnations_.contains(node) &&
            scheduler_->node_incarnation(node) > incarnation) {
          ++ledger_.at(effect).processes_ended;
        }
        close_effect(effect);
        if (fault.duration_ns > 0) {
          scheduler_->at(until, [this, node] {
            if (incarnations_.contains(node)) return;
            start_incarnation(node);
            record(node, WorldEventKind::kNodeRestarted,
                   incarnations_.at(node)->instance->holder());
          });
        }
      } else {
        // A store keeps what it committed; while it is down nothing reaches it. The lease store
        // comes back as a new process that loads its committed leases (RestartableLeaseStore).
        // The crash ends the store's pauses, as it ends an instance's: the requests they left
        // unread die with the process (Network::crashed), and the process that comes back is
        // neither paused nor held to the dead one's planned resume.
        const std::set<std::size_t> ended_pauses = take_pauses(pauses_, node);
        if (scheduler_->node_paused(node)) scheduler_->resume_node(node);
        network_->crashed(node);
        network_->forget_holds(node);
        network_->set_up(node, false);
        ledger_.at(effect).end_ns = fault.duration_ns > 0 ? until : now + runtime::kSecond;
        record(node, WorldEventKind::kNodeCrashed, "down; committed state kept");
        for (const std::size_t pause : ended_pauses) close_effect(pause);
        scheduler_->at(fault.duration_ns > 0 ? until : now + runtime::kSecond,
                       [this, node, effect] {
                         close_effect(effect);
                         if (node == store_node_) leases_->restart();
                         network_->set_up(node, true);
                         record(node, WorldEventKind::kNodeRestarted,
                                node == store_node_ ? "up; committed leases reloaded" : "up");
                       });
      }
      break;
    }
    case FaultKind::kClockDrift:
      // Measured when it ends (the safety phase's end): how far the node's clock moved from
      // true time since it began.
      ledger_.at(effect).start_monotonic_ns = clocks_[node].monotonic_at(now);
      clocks_[node].set_drift_ppm(now, fault.amount);
      scheduler_->retime_local_sleeps(node, [&clock = clocks_[node]](std::int64_t local_ns) {
        return clock.true_time_when(local_ns);
      });
      break;
    case FaultKind::kClockStep: {
      const std::int64_t before = clocks_[node].wall_at(now);
      clocks_[node].step_wall(fault.amount);
      if (fault.amount != 0) ++ledger_.at(effect).chances;
      ledger_.at(effect).clock_moved_ns = clocks_[node].wall_at(now) - before;
      close_effect(effect);
      break;
    }
    case FaultKind::kNetworkDelay:
    case FaultKind::kStoreSlow:
      network_->add_node_trouble(node, LinkTrouble{until, fault.amount, 0, 0, false});
      break;
    case FaultKind::kNetworkDrop:
      network_->add_node_trouble(node, LinkTrouble{until, 0, fault.probability, 0, false});
      break;
    case FaultKind::kNetworkDuplicate:
      network_->add_node_trouble(node, LinkTrouble{until, 0, 0, fault.probability, false});
      break;
    case FaultKind::kPartition:
      network_->add_partition(node, node_named(fault.peer), until);
      break;
    case FaultKind::kStoreDown:
      network_->add_node_trouble(node, LinkTrouble{until, 0, 0, 0, true});
      break;
  }
}

void World::close_effect(std::size_t index) {
  FaultEffect& effect = ledger_.at(index);
  if (effect.ended) return;
  const std::int64_t now = scheduler_->now_ns();
  if (effect.kind == FaultKind::kClockDrift) {
    const std::int64_t elapsed = now - effect.start_ns;
    effect.clock_moved_ns =
        clocks_[effect.node].monotonic_at(now) - effect.start_monotonic_ns - elapsed;
    // A drift moves the clock only once it has run long enough to gain a whole nanosecond.
    const std::int64_t ppm = clocks_[effect.node].drift_ppm();
    if (ppm != 0 && elapsed >= 1'000'000 / (ppm < 0 ? -ppm : ppm)) ++effect.chances;
  }
  record(effect.node, WorldEventKind::kFaultEnded, effect.describe(names_));
  ledger_.close(index);
}

void World::heal() {
  quiet_ = true;
  pauses_.clear();
  // Every fault still on ends now: what each did goes into the history before the quiet phase.
  for (std::size_t i = 0; i < ledger_.effects().size(); ++i) close_effect(i);
  for (std::size_t i = 1; i < names_.size(); ++i) {
    const auto node = static_cast<NodeId>(i);
    if (scheduler_->node_paused(node)) {
      scheduler_->resume_node(node);
      record(node, WorldEventKind::kNodeResumed, "healed");
      network_->resumed(node);
    }
    network_->set_up(node, true);
  }
  network_->heal();
  // A crashed instance whose restart is still pending comes back now.
  for (std::size_t i = 1; i < names_.size(); ++i) {
    const auto node = static_cast<NodeId>(i);
    if (kinds_[node] == NodeKind::kInstance && !incarnations_.contains(node)) {
      start_incarnation(node);
      record(node, WorldEventKind::kNodeRestarted, incarnations_.at(node)->instance->holder());
    }
  }
}

}  // namespace fencesim::sim
