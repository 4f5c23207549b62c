// Scheduler: the calls made from fibers and timer callbacks (blocking, waking, timers, nodes).
#include <fmt/format.h>

#include <algorithm>
#include <boost/fiber/context.hpp>
#include <boost/fiber/operations.hpp>
#include <limits>
#include <vector>

#include "runtime/check.h"
#include "sim/fiber_algorithm.h"
#include "sim/scheduler.h"

namespace fencesim::sim {

using boost::fibers::context;
using boost::fibers::type;

FiberRecord* Scheduler::current_fiber() const {
  const context* active = context::active();
  if (active == nullptr || !active->is_context(type::worker_context)) return nullptr;
  const auto* properties = static_cast<const FiberProperties*>(active->get_properties());
  return properties == nullptr ? nullptr : properties->record;
}

FiberRecord* Scheduler::current_fiber_checked(const char* call) const {
  FiberRecord* fiber = current_fiber();
  check(fiber != nullptr, call);
  return fiber;
}

NodeId Scheduler::current_node() const {
  const FiberRecord* fiber = current_fiber();
  return fiber == nullptr ? kWorldNode : fiber->node;
}

std::string_view Scheduler::current_fiber_name() const {
  const FiberRecord* fiber = current_fiber();
  return fiber == nullptr ? std::string_view() : std::string_view(fiber->name);
}

void Scheduler::unwind_if_killed(FiberRecord* fiber) {
  if (!fiber->killed()) return;
  // Switch before throwing: a fiber that swallows Killed and blocks again in a loop then still
  // counts steps, so the step limit (or the teardown budget) ends it instead of a silent hang.
  boost::this_fiber::yield();
  throw Killed{};
}

void Scheduler::park(FiberRecord* fiber, FiberState state) {
  fiber->state = state;
  fiber->parked_since_ns = now_ns_;
  context::active()->suspend();
}

void Scheduler::make_ready(FiberRecord* fiber) {
  // Boost calls SimAlgorithm::awakened, which files the fiber as runnable or held.
  context::active()->schedule(fiber->context);
}

void Scheduler::sleep_until(std::int64_t time_ns) {
  FiberRecord* fiber = current_fiber_checked("Scheduler::sleep_until is called from a fiber");
  unwind_if_killed(fiber);
  if (time_ns <= now_ns_) {
    yield();
    return;
  }
  fiber->sleep_key = EventKey{time_ns, next_event_sequence_++};
  sleepers_.emplace(fiber->sleep_key, fiber);
  park(fiber, FiberState::kSleeping);
  if (fiber->killed()) throw Killed{};
}

void Scheduler::sleep_until_local(std::int64_t time_ns, std::int64_t local_wake_ns) {
  FiberRecord* fiber = current_fiber_checked("Scheduler::sleep_until_local is called from a fiber");
  fiber->local_wake_ns = local_wake_ns;
  struct Clear {
    FiberRecord* fiber;
    ~Clear() { fiber->local_wake_ns = -1; }
  } clear{fiber};
  sleep_until(time_ns);
}

void Scheduler::retime_local_sleeps(NodeId node,
                                    const std::function<std::int64_t(std::int64_t)>& true_time_of) {
  std::vector<FiberRecord*> moved;
  for (auto it = sleepers_.begin(); it != sleepers_.end();) {
    FiberRecord* fiber = it->second;
    if (fiber->node == node && fiber->local_wake_ns >= 0 && !fiber->killed()) {
      moved.push_back(fiber);
      it = sleepers_.erase(it);
    } else {
      ++it;
    }
  }
  // In the order they would have woken: their new sequence numbers keep that order at one time.
  for (FiberRecord* fiber : moved) {
    fiber->sleep_key =
        EventKey{std::max(true_time_of(fiber->local_wake_ns), now_ns_), next_event_sequence_++};
    sleepers_.emplace(fiber->sleep_key, fiber);
  }
}

void Scheduler::sleep_for(std::int64_t duration_ns) {
  const std::int64_t room = std::numeric_limits<std::int64_t>::max() - now_ns_;
  sleep_until(now_ns_ + std::clamp<std::int64_t>(duration_ns, 0, room));
}

void Scheduler::yield() {
  FiberRecord* fiber = current_fiber_checked("Scheduler::yield is called from a fiber");
  unwind_if_killed(fiber);
  boost::this_fiber::yield();
  if (fiber->killed()) throw Killed{};
}

void Scheduler::block(Waiter& waiter) {
  FiberRecord* fiber = current_fiber_checked("Scheduler::block is called from a fiber");
  unwind_if_killed(fiber);
  if (waiter.signaled_) {
    waiter.signaled_ = false;
    return;
  }
  check(waiter.fiber_ == nullptr, "one fiber at a time blocks on a Waiter");
  waiter.fiber_ = fiber;
  fiber->waiter = &waiter;
  park(fiber, FiberState::kBlocked);
  if (fiber->killed()) throw Killed{};
}

void Scheduler::wake(Waiter& waiter) {
  FiberRecord* fiber = waiter.fiber_;
  if (fiber == nullptr) {
    waiter.signaled_ = true;
    return;
  }
  waiter.fiber_ = nullptr;
  fiber->waiter = nullptr;
  note_touch(fiber->node);  // for an explorer: a wake is part of the woken fiber's node's state
  make_ready(fiber);
}

void Scheduler::at(std::int64_t time_ns, Callback fn) {
  if (tearing_down_) return;
  check(fn != nullptr, "a timer needs a callback");
  std::uint32_t slot = 0;
  if (free_timer_slots_.empty()) {
    slot = static_cast<std::uint32_t>(timer_slots_.size());
    timer_slots_.push_back(std::move(fn));
  } else {
    slot = free_timer_slots_.back();
    free_timer_slots_.pop_back();
    timer_slots_[slot] = std::move(fn);
  }
  const auto later = [](const TimerEntry& a, const TimerEntry& b) { return later_timer(a, b); };
  timer_heap_.push_back(
      TimerEntry{EventKey{std::max(time_ns, now_ns_), next_event_sequence_++}, slot});
  std::push_heap(timer_heap_.begin(), timer_heap_.end(), later);
}

void Scheduler::stop() {
  if (!tearing_down_) stop_requested_ = true;
}

void Scheduler::pause_node(NodeId node) {
  if (tearing_down_) return;
  NodeState& state = node_state(node);
  if (state.paused) return;
  state.paused = true;
  const std::size_t taken = ready_.hold_node(node);
  if (ready_hook_) {
    for (std::size_t i = 0; i < taken; ++i) ready_hook_(node, true);
  }
}

void Scheduler::resume_node(NodeId node) {
  NodeState& state = node_state(node);
  if (!state.paused) return;
  state.paused = false;
  ready_.release_node(node);
}

bool Scheduler::node_paused(NodeId node) const {
  const auto found = nodes_.find(node);
  return found != nodes_.end() && found->second.paused;
}

std::uint64_t Scheduler::node_incarnation(NodeId node) const {
  const auto found = nodes_.find(node);
  return found == nodes_.end() ? 0 : found->second.incarnation;
}

void Scheduler::kill_node(NodeId node) {
  NodeState& state = node_state(node);
  ++state.incarnation;
  // A crashed process is no longer stopped; its fibers must run to unwind.
  resume_node(node);
  for (auto& [sequence, record] : live_) {
    FiberRecord* fiber = record.get();
    if (fiber->node != node) continue;
    if (fiber->state == FiberState::kSleeping) {
      sleepers_.erase(fiber->sleep_key);
      make_ready(fiber);
    } else if (fiber->state == FiberState::kBlocked) {
      // Detached from its slot: a late wake of that slot must not touch the unwinding fiber.
      if (fiber->waiter != nullptr) fiber->waiter->fiber_ = nullptr;
      fiber->waiter = nullptr;
      make_ready(fiber);
    }
  }
}

void Scheduler::note_touch(std::uint32_t object) {
  if (options_.chooser == nullptr || tearing_down_ || current_fiber() == nullptr) return;
  options_.chooser->touch(object);
}

std::vector<Scheduler::StuckFiber> Scheduler::stuck_fibers() const {
  const FiberRecord* current = current_fiber();
  std::vector<StuckFiber> stuck;
  for (const auto& [sequence, record] : live_) {
    const FiberRecord& fiber = *record;
    StuckFiber entry{fiber.name, fiber.node, fiber.incarnation, {}, fiber.parked_since_ns};
    if (fiber.state == FiberState::kBlocked) {
      if (fiber.waiter == nullptr) {
        entry.waits_on = "a destroyed Waiter";
      } else if (fiber.waiter->awaits().empty()) {
        entry.waits_on = "an unnamed Waiter";
      } else {
        entry.waits_on = std::string(fiber.waiter->awaits());
      }
    } else if (fiber.state == FiberState::kRunning && &fiber != current) {
      entry.waits_on = "a Boost primitive (parked outside the Scheduler)";
    } else if (fiber.state == FiberState::kReady && fiber.node_state->paused) {
      entry.waits_on = "its paused node (ready, held by its paused node)";
      entry.since_ns = 0;
    } else {
      continue;
    }
    stuck.push_back(std::move(entry));
  }
  return stuck;
}

std::string Scheduler::deadlock_report() const {
  std::string report = fmt::format("at {} ns:", now_ns_);
  const std::vector<StuckFiber> stuck = stuck_fibers();
  for (const StuckFiber& fiber : stuck) {
    report += fmt::format("\n  fiber '{}' (node {}, incarnation {}): waits on {}", fiber.name,
                          fiber.node, fiber.incarnation, fiber.waits_on);
    if (fiber.since_ns > 0) report += fmt::format(" since {} ns", fiber.since_ns);
  }
  if (stuck.empty()) report += " no blocked fiber";
  return report;
}

}  // namespace fencesim::sim
