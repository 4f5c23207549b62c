#pragma once
// The hook a systematic explorer (explore/) drives a world through. With a ChoiceSource installed
// (SchedulerOptions::chooser, WorldOptions::chooser), every pick of a fiber asks it which runnable
// fiber runs next, every choice of data a scenario makes (World::choose) asks it which alternative
// to take, which of the events due at one instant fires next (pick_order), and the running fiber's step reports what it touched beyond its own node (a message's
// destination, a fault applied), so that the explorer can tell which steps commute. Without one,
// nothing changes: the seeded strategies pick as before and no history hash moves.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "sim/node_id.h"

namespace fencesim::sim {

// What a fiber's step may touch besides its own node: a node id, or one of these.
inline constexpr std::uint32_t kTouchAll = 0xffffffffu;          // conflicts with every step
inline constexpr std::uint32_t kTouchNetworkRng = 0xfffffffeu;  // a draw that shapes a message

// A runnable fiber offered to a pick: its spawn sequence (stable within a run, given the same
// choices before it) and its node.
struct Candidate {
  std::uint64_t fiber = 0;
  NodeId node = kWorldNode;
};

class ChoiceSource {
 public:
  virtual ~ChoiceSource() = default;
  // Every pick of a fiber, a lone candidate included (the explorer follows every step). Returns an
  // index into `runnable`, which is in spawn order.
  virtual std::size_t pick_fiber(std::span<const Candidate> runnable) = 0;
  // A choice among `count` >= 1 alternatives of data (a fault's trigger, a duration), named by
  // `what` for the choice log.
  virtual std::size_t pick_value(std::string_view what, std::size_t count) = 0;
  // Which of `count` >= 1 events due at one virtual instant (timer callbacks: message deliveries,
  // timeouts, faults) fires next, the candidates in the order they were scheduled. Index 0 keeps
  // that order; index k lets an event overtake k earlier ones, which a bounded search counts as k
  // delays. Made on the main context, between the fibers' steps. By default a data choice.
  virtual std::size_t pick_order(std::string_view what, std::size_t count) {
    return pick_value(what, count);
  }
  // The running fiber's step touched `object` (see kTouchAll); only called from a fiber.
  virtual void touch(std::uint32_t object) = 0;
};

}  // namespace fencesim::sim
