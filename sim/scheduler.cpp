// Scheduler: construction and teardown, spawning, and the run loop that advances virtual time.
// The calls made from fibers and timer callbacks live in scheduler_calls.cpp.
#include "sim/scheduler.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/fiber/algo/round_robin.hpp>
#include <boost/fiber/fiber.hpp>
#include <boost/fiber/operations.hpp>
#include <iterator>

#include "runtime/check.h"
#include "sim/fiber_algorithm.h"

namespace fencesim::sim {
namespace {

using boost::fibers::context;
using boost::fibers::type;

// The one piece of per-thread state outside Boost: Boost installs a scheduling algorithm per
// thread, so two live worlds on one thread would steal each other's fibers. Only checked, never
// used to find a world.
thread_local bool t_world_alive = false;

// Unwinding a world takes a few switches per fiber; a fiber that swallows Killed and keeps
// blocking would take forever, and is reported instead.
constexpr std::uint64_t kTeardownStepBudget = 10'000'000;

// After this many ended fibers the next switch goes through the dispatcher to free their stacks.
// It does not touch the seeded choice: the dispatcher draws nothing and counts no step.
constexpr std::size_t kEndedFibersPerRelease = 32;

bool on_main_context() {
  const context* active = context::active();
  return active != nullptr && active->is_context(type::main_context);
}

}  // namespace

std::string_view to_string(RunStatus status) {
  switch (status) {
    case RunStatus::kIdle:
      return "idle";
    case RunStatus::kStopped:
      return "stopped";
    case RunStatus::kTimeLimit:
      return "time-limit";
    case RunStatus::kStepLimit:
      return "step-limit";
    case RunStatus::kDeadlock:
      return "deadlock";
    case RunStatus::kFiberError:
      return "fiber-error";
    case RunStatus::kTimeReached:
      return "time-reached";
  }
  return "unknown";
}

void Scheduler::reseed(std::uint64_t seed) {
  rng_ = derive_stream(seed, "scheduler");
  order_rng_ = derive_stream(seed, "instant-order");
}

Scheduler::Scheduler(SchedulerOptions options)
    : options_(std::move(options)),
      rng_(derive_stream(options_.seed, "scheduler")),
      order_rng_(derive_stream(options_.seed, "instant-order")) {
  check(!t_world_alive, "one live Scheduler per thread");
  check(on_main_context(), "a Scheduler is built on a thread's main context");
  check(options_.pct_change_points >= 0, "pct_change_points >= 0");
  check(options_.same_instant_window >= 1, "same_instant_window >= 1");
  stack_pool_ = options_.stack_pool ? options_.stack_pool : std::make_shared<StackPool>();
  if (options_.strategy == Strategy::kPct) {
    const std::uint64_t horizon =
        std::max<std::uint64_t>(1, std::min(options_.step_limit, options_.pct_horizon_steps));
    for (int i = 0; i < options_.pct_change_points; ++i) {
      pct_change_steps_.push_back(1 + rng_.below(horizon));
    }
    std::sort(pct_change_steps_.begin(), pct_change_steps_.end());
  }
  // Installing moves Boost's dispatcher into the new algorithm; it registers itself in algorithm_.
  boost::fibers::use_scheduling_algorithm<SimAlgorithm>(this);
  t_world_alive = true;
}

Scheduler::~Scheduler() {
  teardown();
}

void Scheduler::teardown() noexcept {
  if (!on_main_context()) fatal("a Scheduler must be destroyed on its thread's main context");
  tearing_down_ = true;
  stop_requested_ = false;
  // What the world hears of fibers ends with the run: its owner may be half destroyed by now.
  ready_hook_ = nullptr;
  timer_heap_.clear();
  timer_slots_.clear();
  free_timer_slots_.clear();
  for (auto& [node, state] : nodes_) kill_node(node);
  while (!live_.empty()) {
    if (!ready_.has_runnable()) {
      fatal(
          "teardown: a fiber parked outside the Scheduler (Boost mutex, condition variable, "
          "future or join) can never be unwound");
    }
    boost::this_fiber::yield();
  }
  // With no worker left, this yield runs the dispatcher, which frees the ended contexts: their
  // stacks go back to the pool before the pool may die.
  boost::this_fiber::yield();
  algorithm_->detach();
  boost::fibers::use_scheduling_algorithm<boost::fibers::algo::round_robin>();
  t_world_alive = false;
}

void Scheduler::spawn(NodeId node, std::string name, std::function<void()> body) {
  if (tearing_down_) return;
  check(body != nullptr, "spawn needs a body");
  note_touch(node);  // a new fiber is part of its node's state
  NodeState& state = node_state(node);
  auto record = std::make_unique<FiberRecord>();
  record->sequence = next_fiber_sequence_++;
  record->name = std::move(name);
  record->node = node;
  record->node_state = &state;
  record->incarnation = state.incarnation;
  if (options_.strategy == Strategy::kPct) {
    // Initial priorities lie above every change-point priority (1..d).
    record->priority = static_cast<std::uint64_t>(options_.pct_change_points) + 1 +
                       rng_.below(std::uint64_t{1} << 62);
  }
  record->body = std::move(body);
  FiberRecord* fiber = record.get();
  live_.emplace(fiber->sequence, std::move(record));
  // Boost makes the new context ready inside the constructor; SimAlgorithm::awakened adopts this
  // record for it.
  pending_spawn_ = fiber;
  try {
    boost::fibers::fiber launched(std::allocator_arg, PooledStackAllocator(stack_pool_),
                                  [this, fiber] { fiber_main(fiber); });
    launched.detach();
  } catch (...) {
    pending_spawn_ = nullptr;
    live_.erase(fiber->sequence);
    throw;
  }
  check(pending_spawn_ == nullptr, "the spawned fiber was adopted");
}

FiberRecord* Scheduler::adopt_pending(context* ctx) noexcept {
  if (pending_spawn_ == nullptr) {
    fatal("a fiber not started by Scheduler::spawn became ready in a simulated world");
  }
  FiberRecord* fiber = pending_spawn_;
  pending_spawn_ = nullptr;
  fiber->context = ctx;
  return fiber;
}

void Scheduler::on_ready(FiberRecord* fiber) noexcept {
  fiber->state = FiberState::kReady;
  const bool held = ready_.push(fiber);
  if (ready_hook_) ready_hook_(fiber->node, held);
}

context* Scheduler::pick_worker() noexcept {
  if (!ready_.has_runnable()) return nullptr;
  if (ended_unreleased_ >= kEndedFibersPerRelease) return nullptr;  // the dispatcher goes first
  if (tearing_down_) {
    if (++teardown_steps_ > kTeardownStepBudget) {
      fatal("teardown: a killed fiber keeps running (does it swallow sim::Killed?)");
    }
  } else if (stop_requested_ || !fiber_error_.empty() ||
             steps_ + timers_fired_ >= options_.step_limit) {
    return nullptr;  // hands control back to run()
  }
  FiberRecord* fiber = nullptr;
  if (options_.chooser != nullptr && !tearing_down_) {
    fiber = pick_by_chooser();
  } else if (options_.strategy == Strategy::kPct) {
    // At change point i the fiber that ran the last step drops to priority d - i, below every
    // initial priority: PCT's way to force the rare orderings.
    const auto d = static_cast<std::uint64_t>(options_.pct_change_points);
    while (next_change_point_ < pct_change_steps_.size() &&
           pct_change_steps_[next_change_point_] <= steps_) {
      if (last_picked_ != nullptr) last_picked_->priority = d - next_change_point_;
      ++next_change_point_;
    }
    fiber = ready_.take_highest_priority();
  } else {
    fiber = ready_.take_uniform(rng_);
  }
  if (!tearing_down_) ++steps_;
  fiber->state = FiberState::kRunning;
  last_picked_ = fiber;
  return fiber->context;
}

FiberRecord* Scheduler::pick_by_chooser() noexcept {
  // The explorer's own code runs here, inside Boost's noexcept hook: it must not throw.
  candidates_.clear();
  for (const FiberRecord* f : ready_.runnable()) {
    candidates_.push_back(Candidate{f->sequence, f->node});
  }
  const std::size_t index = options_.chooser->pick_fiber(candidates_);
  if (index >= candidates_.size()) fatal("a ChoiceSource picked past the runnable fibers");
  return ready_.take_index(index);
}

void Scheduler::fiber_main(FiberRecord* fiber) {
  std::string error;
  try {
    // Moved to this frame so that the body's captures die inside the try as well.
    std::function<void()> body = std::move(fiber->body);
    fiber->body = nullptr;
    // A fiber killed before its first turn never starts its body.
    if (!fiber->killed()) body();
  } catch (const Killed&) {
    // The normal end of a killed fiber.
  } catch (const std::exception& e) {
    error = e.what();
    if (error.empty()) error = "an exception with an empty what()";
  } catch (...) {
    error = "an exception not derived from std::exception";
  }
  // Outside the catch blocks on purpose: nothing below may switch fibers inside one.
  finish_fiber(fiber, error);
}

void Scheduler::finish_fiber(FiberRecord* fiber, const std::string& error) {
  // A crashed process's last words are not errors of the run.
  if (!error.empty() && !fiber->killed()) {
    record_error(fmt::format("fiber '{}' (node {}): {}", fiber->name, fiber->node, error));
  }
  static_cast<FiberProperties*>(fiber->context->get_properties())->record = nullptr;
  if (last_picked_ == fiber) last_picked_ = nullptr;
  ++ended_unreleased_;
  live_.erase(fiber->sequence);
}

void Scheduler::record_error(std::string message) {
  if (fiber_error_.empty()) fiber_error_ = std::move(message);
}

RunStatus Scheduler::run() {
  return run_loop(std::nullopt);
}

RunStatus Scheduler::run_until(std::int64_t time_ns) {
  return run_loop(time_ns);
}

RunStatus Scheduler::run_loop(std::optional<std::int64_t> until_ns) {
  check(on_main_context(), "run() is called on the main context");
  check(!running_, "run() is not reentrant");
  running_ = true;
  const std::int64_t limit = options_.virtual_time_limit_ns;
  const std::int64_t horizon = until_ns ? std::min(*until_ns, limit) : limit;
  RunStatus status = RunStatus::kIdle;
  for (;;) {
    if (const auto interrupted = interruption()) {
      status = *interrupted;
      break;
    }
    if (ready_.has_runnable()) {
      // Runs fibers until none is runnable or a pick hands control back (stop, limit, error).
      boost::this_fiber::yield();
      continue;
    }
    const std::optional<std::int64_t> next = next_event_ns();
    if (!next) {
      if (has_stuck_fibers()) {
        status = RunStatus::kDeadlock;
      } else {
        if (until_ns) now_ns_ = std::max(now_ns_, horizon);
        status = RunStatus::kIdle;
      }
      break;
    }
    if (*next > horizon) {
      now_ns_ = std::max(now_ns_, horizon);
      status = until_ns && *until_ns < limit ? RunStatus::kTimeReached : RunStatus::kTimeLimit;
      break;
    }
    now_ns_ = std::max(now_ns_, *next);
    fire_due_events();
  }
  running_ = false;
  if (status == RunStatus::kStopped) stop_requested_ = false;
  return status;
}

std::optional<RunStatus> Scheduler::interruption() const {
  if (!fiber_error_.empty()) return RunStatus::kFiberError;
  if (stop_requested_) return RunStatus::kStopped;
  if (steps_ + timers_fired_ >= options_.step_limit) return RunStatus::kStepLimit;
  return std::nullopt;
}

std::optional<std::int64_t> Scheduler::next_event_ns() const {
  std::optional<std::int64_t> next;
  if (!sleepers_.empty()) next = sleepers_.begin()->first.time_ns;
  if (!timer_heap_.empty()) {
    const std::int64_t timer_ns = timer_heap_.front().key.time_ns;
    next = next ? std::min(*next, timer_ns) : timer_ns;
  }
  return next;
}

void Scheduler::fire_due_events() {
  // Due sleepers only become ready: which of them runs first is the pick's choice, not the order
  // they went to sleep in.
  while (!sleepers_.empty() && sleepers_.begin()->first.time_ns <= now_ns_) {
    FiberRecord* fiber = sleepers_.begin()->second;
    sleepers_.erase(sleepers_.begin());
    make_ready(fiber);
  }
  // Callbacks may schedule more timers at this very instant; they fire in this batch too.
  while (!timer_heap_.empty() && timer_heap_.front().key.time_ns <= now_ns_) {
    if (interruption()) return;
    fire_timer(take_due_timer());
  }
}

Scheduler::TimerEntry Scheduler::take_due_timer() {
  // A lambda, not the function itself, so that the heap's comparisons inline.
  const auto later = [](const TimerEntry& a, const TimerEntry& b) { return later_timer(a, b); };
  // Every due timer is at this instant (or overdue, which is the same to the world). The draw
  // comes from its own stream so that it does not shift the strategy's picks, and only when there
  // is a choice, so that a world whose instants hold one event each draws nothing. The first
  // `window` due timers come off the heap in key order (as a map by key would list them); the
  // ones not picked go back.
  std::pop_heap(timer_heap_.begin(), timer_heap_.end(), later);
  const TimerEntry first = timer_heap_.back();
  timer_heap_.pop_back();
  // The common case, one event at this instant: no choice, no draw, nothing goes back.
  if (options_.same_instant_window == 1 || timer_heap_.empty() ||
      timer_heap_.front().key.time_ns > now_ns_) {
    return first;
  }
  due_timers_.clear();
  due_timers_.push_back(first);
  while (!timer_heap_.empty() && timer_heap_.front().key.time_ns <= now_ns_ &&
         due_timers_.size() < options_.same_instant_window) {
    std::pop_heap(timer_heap_.begin(), timer_heap_.end(), later);
    due_timers_.push_back(timer_heap_.back());
    timer_heap_.pop_back();
  }
  const std::size_t due = due_timers_.size();
  std::size_t index = 0;
  if (due > 1) {
    index = options_.chooser != nullptr ? options_.chooser->pick_order("same-instant event", due)
                                        : static_cast<std::size_t>(order_rng_.below(due));
    check(index < due, "a ChoiceSource picks one of the due events");
  }
  for (std::size_t i = 0; i < due; ++i) {
    if (i == index) continue;
    timer_heap_.push_back(due_timers_[i]);
    std::push_heap(timer_heap_.begin(), timer_heap_.end(), later);
  }
  return due_timers_[index];
}

void Scheduler::fire_timer(TimerEntry due) {
  const std::int64_t time_ns = due.key.time_ns;
  Callback callback = std::move(timer_slots_[due.slot]);
  free_timer_slots_.push_back(due.slot);
  ++timers_fired_;
  std::string error;
  try {
    callback();
  } catch (const std::exception& e) {
    error = e.what();
  } catch (...) {
    error = "an exception not derived from std::exception";
  }
  if (!error.empty()) record_error(fmt::format("timer callback at {} ns: {}", time_ns, error));
}

bool Scheduler::has_stuck_fibers() const {
  // On the main context no fiber is running, so one marked running is parked somewhere we cannot
  // see (a Boost primitive): as stuck as a blocked one.
  return std::any_of(live_.begin(), live_.end(), [](const auto& entry) {
    const FiberState state = entry.second->state;
    return state == FiberState::kBlocked || state == FiberState::kRunning;
  });
}

}  // namespace fencesim::sim
