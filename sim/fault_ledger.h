#pragma once
// What each fault of a run did. A fault that silently does nothing reads exactly like a runtime
// without bugs, so every applied fault has an entry here: the chances it had to act, counted where
// the world sees them happen and before the fault's own code decides (a message sent on the cut
// link, a fiber of the paused node coming due, a call reaching the crashed store), and what it did,
// counted where it acts (messages held, dropped, duplicated, delayed, cut or refused; wake-ups a
// paused node missed; the clock delta measured on the node's clock; the process a crash ended).
// The world records each entry in the history as its fault ends (kFaultEnded); a sweep fails a
// fault kind that had chances and never acted (reports/claims.h).
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "sim/fault.h"
#include "sim/node_id.h"

namespace fencesim::sim {

struct FaultEffect {
  FaultKind kind{};
  NodeId node = kWorldNode;
  NodeId peer = kWorldNode;  // kPartition only
  std::int64_t start_ns = 0;
  std::int64_t end_ns = std::numeric_limits<std::int64_t>::max();  // its window's planned end
  bool ended = false;
  double probability = 1;               // drop and duplicate windows act on a share of messages
  std::int64_t extra_latency_ns = 0;    // delay and slow-store windows: what each message is given
  std::int64_t start_monotonic_ns = 0;  // a drift's node clock when it began

  // Whether the fault had a real chance to act: one chance for a fault that acts on each (a
  // partition, a pause), chances x probability >= 5 for a drop or duplicate window (a 10% drop on
  // a link that carried 3 messages probably drops nothing: not a sign that drops do nothing).
  bool could_act() const;
  // Chances to act: messages on its node or link while it was on, wake-ups of its node's fibers
  // during a pause, a live process for a crash, a non-zero clock change for a clock fault.
  std::uint64_t chances = 0;

  std::uint64_t messages_held = 0;        // a paused or migrating node's, kept until it resumes
  std::uint64_t messages_dropped = 0;     // lost to a drop window or a store that is down
  std::uint64_t messages_duplicated = 0;  // delivered twice
  std::uint64_t messages_delayed = 0;     // given the window's extra latency
  std::uint64_t messages_cut = 0;         // lost to a partition
  std::uint64_t messages_refused = 0;     // reached a crashed store
  std::uint64_t wakeups_missed = 0;       // the paused node's fibers held instead of run
  std::uint64_t processes_ended = 0;      // a crash's incarnation that was lost
  std::int64_t clock_moved_ns = 0;        // measured on the node's clock

  bool acted() const;
  // "acted: 3 messages held, 2 wake-ups missed (chances 5)"; peers named from `names`.
  std::string describe(const std::vector<std::string>& names) const;
};

class FaultLedger {
 public:
  // A fault as it is applied; returns its entry's index.
  std::size_t open(const Fault& fault, NodeId node, NodeId peer, std::int64_t now_ns);
  FaultEffect& at(std::size_t index) { return effects_.at(index); }
  // The entry's fault ended: it counts nothing more, and the hooks below no longer look at it.
  void close(std::size_t index);
  const std::vector<FaultEffect>& effects() const { return effects_; }

  // The network's view (sim/network.cpp), each at true time `now`.
  void message_sent(NodeId from, NodeId to, std::int64_t now);
  void message_arriving(NodeId from, NodeId to, std::int64_t now);
  void message_dropped(NodeId troubled, std::int64_t now);
  void message_delayed(NodeId troubled, std::int64_t now);
  void message_duplicated(NodeId to, std::int64_t now);
  void send_held(NodeId from, std::int64_t now);
  void in_flight_held(NodeId node, std::int64_t now);
  void inbox_held(NodeId to, std::int64_t now);
  void message_cut(NodeId from, NodeId to, std::int64_t now);
  void message_refused(NodeId to, std::int64_t now);
  // The scheduler's view: a fiber of `node` became ready, and was held (its node paused) or not.
  void fiber_readied(NodeId node, bool held, std::int64_t now);

 private:
  template <typename Match, typename Act>
  void each_active(std::int64_t now, Match match, Act act);

  std::vector<FaultEffect> effects_;
  // The entries not yet closed, in the order they were opened: every message and every wake-up
  // of a fiber goes through the hooks, so they scan only these (none in a run without faults).
  std::vector<std::size_t> open_;
};

}  // namespace fencesim::sim
