#include "sim/fault_ledger.h"

#include <fmt/format.h>

namespace fencesim::sim {

namespace {

bool pauses(FaultKind kind) {
  return kind == FaultKind::kStall || kind == FaultKind::kStop || kind == FaultKind::kMigrate;
}

// The windows the network applies per node (LinkTrouble), by what they do to a message.
bool node_trouble(FaultKind kind) {
  return kind == FaultKind::kNetworkDelay || kind == FaultKind::kStoreSlow ||
         kind == FaultKind::kNetworkDrop || kind == FaultKind::kStoreDown;
}

}  // namespace

bool FaultEffect::could_act() const {
  return static_cast<double>(chances) * probability >= (probability < 1 ? 5.0 : 1.0);
}

bool FaultEffect::acted() const {
  return messages_held + messages_dropped + messages_duplicated + messages_delayed + messages_cut +
                 messages_refused + wakeups_missed + processes_ended >
             0 ||
         clock_moved_ns != 0;
}

std::string FaultEffect::describe(const std::vector<std::string>& names) const {
  std::string what;
  const auto add = [&what](std::uint64_t count, const char* one, const char* many) {
    if (count == 0) return;
    what += fmt::format("{}{} {}", what.empty() ? "" : ", ", count, count == 1 ? one : many);
  };
  add(messages_held, "message held", "messages held");
  add(messages_dropped, "message dropped", "messages dropped");
  add(messages_duplicated, "message duplicated", "messages duplicated");
  add(messages_delayed, "message delayed", "messages delayed");
  if (messages_cut > 0) {
    what += fmt::format("{}{} message{} cut between {} and {}", what.empty() ? "" : ", ",
                        messages_cut, messages_cut == 1 ? "" : "s", names.at(node), names.at(peer));
  }
  add(messages_refused, "message refused (down)", "messages refused (down)");
  add(wakeups_missed, "wake-up missed", "wake-ups missed");
  add(processes_ended, "process ended", "processes ended");
  if (clock_moved_ns != 0) {
    what += fmt::format("{}clock moved {:+} ns", what.empty() ? "" : ", ", clock_moved_ns);
  }
  return fmt::format("{} {}: {} (chances {})", to_string(kind), names.at(node),
                     what.empty() ? std::string("no effect") : "acted: " + what, chances);
}

std::size_t FaultLedger::open(const Fault& fault, NodeId node, NodeId peer, std::int64_t now_ns) {
  FaultEffect effect;
  effect.kind = fault.kind;
  effect.node = node;
  effect.peer = peer;
  effect.start_ns = now_ns;
  if (fault.kind == FaultKind::kNetworkDrop || fault.kind == FaultKind::kNetworkDuplicate) {
    effect.probability = fault.probability;
  }
  if (fault.kind == FaultKind::kNetworkDelay || fault.kind == FaultKind::kStoreSlow) {
    effect.extra_latency_ns = fault.amount;
  }
  if (fault.duration_ns > 0) effect.end_ns = now_ns + fault.duration_ns;
  effects_.push_back(effect);
  open_.push_back(effects_.size() - 1);
  return effects_.size() - 1;
}

void FaultLedger::close(std::size_t index) {
  effects_.at(index).ended = true;
  std::erase(open_, index);
}

template <typename Match, typename Act>
void FaultLedger::each_active(std::int64_t now, Match match, Act act) {
  for (const std::size_t index : open_) {
    FaultEffect& effect = effects_[index];
    if (now < effect.start_ns || now >= effect.end_ns) continue;
    if (match(effect)) act(effect);
  }
}

void FaultLedger::message_sent(NodeId from, NodeId to, std::int64_t now) {
  each_active(
      now,
      [&](const FaultEffect& e) {
        if (node_trouble(e.kind)) return e.node == from || e.node == to;
        if (e.kind == FaultKind::kNetworkDuplicate) return e.node == to;
        return pauses(e.kind) && e.node == from;  // a paused store's replies wait
      },
      [](FaultEffect& e) { ++e.chances; });
}

void FaultLedger::message_arriving(NodeId from, NodeId to, std::int64_t now) {
  each_active(
      now,
      [&](const FaultEffect& e) {
        if (e.kind == FaultKind::kPartition) {
          return (e.node == from && e.peer == to) || (e.node == to && e.peer == from);
        }
        if (e.kind == FaultKind::kCrash) return e.node == to;  // a crashed store's window
        if (e.kind == FaultKind::kMigrate) return e.node == from || e.node == to;
        return pauses(e.kind) && e.node == to;
      },
      [](FaultEffect& e) { ++e.chances; });
}

void FaultLedger::message_dropped(NodeId troubled, std::int64_t now) {
  each_active(
      now,
      [&](const FaultEffect& e) {
        // Of the windows open on the node, those that could drop: a 0% drop window overlapping
        // a real one made none of its drops.
        return e.node == troubled && ((e.kind == FaultKind::kNetworkDrop && e.probability > 0) ||
                                      e.kind == FaultKind::kStoreDown);
      },
      [](FaultEffect& e) { ++e.messages_dropped; });
}

void FaultLedger::message_delayed(NodeId troubled, std::int64_t now) {
  each_active(
      now,
      [&](const FaultEffect& e) {
        // The windows' latencies add (Network::trouble): one that adds nothing delayed nothing,
        // even while another window on the node delays every message.
        return e.node == troubled && e.extra_latency_ns > 0 &&
               (e.kind == FaultKind::kNetworkDelay || e.kind == FaultKind::kStoreSlow);
      },
      [](FaultEffect& e) { ++e.messages_delayed; });
}

void FaultLedger::message_duplicated(NodeId to, std::int64_t now) {
  each_active(
      now,
      [&](const FaultEffect& e) {
        return e.node == to && e.kind == FaultKind::kNetworkDuplicate && e.probability > 0;
      },
      [](FaultEffect& e) { ++e.messages_duplicated; });
}

void FaultLedger::send_held(NodeId from, std::int64_t now) {
  each_active(
      now, [&](const FaultEffect& e) { return e.node == from && pauses(e.kind); },
      [](FaultEffect& e) { ++e.messages_held; });
}

void FaultLedger::in_flight_held(NodeId node, std::int64_t now) {
  each_active(
      now, [&](const FaultEffect& e) { return e.node == node && pauses(e.kind); },
      [](FaultEffect& e) { ++e.messages_held; });
}

void FaultLedger::inbox_held(NodeId to, std::int64_t now) {
  each_active(
      now, [&](const FaultEffect& e) { return e.node == to && pauses(e.kind); },
      [](FaultEffect& e) { ++e.messages_held; });
}

void FaultLedger::message_cut(NodeId from, NodeId to, std::int64_t now) {
  each_active(
      now,
      [&](const FaultEffect& e) {
        return e.kind == FaultKind::kPartition &&
               ((e.node == from && e.peer == to) || (e.node == to && e.peer == from));
      },
      [](FaultEffect& e) { ++e.messages_cut; });
}

void FaultLedger::message_refused(NodeId to, std::int64_t now) {
  each_active(
      now, [&](const FaultEffect& e) { return e.node == to && e.kind == FaultKind::kCrash; },
      [](FaultEffect& e) { ++e.messages_refused; });
}

void FaultLedger::fiber_readied(NodeId node, bool held, std::int64_t now) {
  each_active(
      now, [&](const FaultEffect& e) { return e.node == node && pauses(e.kind); },
      [held](FaultEffect& e) {
        ++e.chances;
        if (held) ++e.wakeups_missed;
      });
}

}  // namespace fencesim::sim
