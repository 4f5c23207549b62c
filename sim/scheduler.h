#pragma once
// The deterministic core of the simulated world: one OS thread, Boost.Fiber fibers picked by a
// seeded algorithm, virtual time, and per-node pause, resume and kill.
//
// How a run proceeds. run() is called on the thread's main context. While some fiber is runnable,
// the main context yields and the seeded pick (sim/fiber_algorithm.h) chooses which fiber runs at
// every switch. When no fiber is runnable, virtual time jumps to the earliest event (a sleeping
// fiber's wake-up or a timer); at that instant every due sleeper becomes ready, then every due
// timer fires in (time, sequence) order, then fibers run again. Virtual time never moves while a
// fiber is runnable, and nothing ever reads a real clock or uses Boost's own sleep queue.
//
// Rules for code running in fibers: park only through this class (sleep_until, sleep_for, yield,
// block). Boost's timed waits read the real clock, and a fiber parked in a Boost mutex, condition
// variable, future or join is invisible to kill, deadlock detection and teardown. Never block or
// yield inside a catch block (exception state is per thread, not per fiber), and never block in a
// destructor: during a Killed unwind the blocking call throws again, which terminates.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/callback.h"
#include "sim/choice.h"
#include "sim/fiber_record.h"
#include "sim/node_id.h"
#include "sim/random.h"
#include "sim/ready_queue.h"
#include "sim/stack_pool.h"
#include "sim/waiter.h"

namespace fencesim::sim {

class SimAlgorithm;

enum class Strategy {
  kRandomWalk,  // every switch picks uniformly among the runnable fibers
  kPct,         // probabilistic concurrency testing: random priorities, d change points
};

struct SchedulerOptions {
  std::uint64_t seed = 0;
  Strategy strategy = Strategy::kRandomWalk;
  int pct_change_points = 3;
  std::int64_t virtual_time_limit_ns = std::numeric_limits<std::int64_t>::max();
  // Bounds fiber switches plus timer callbacks, so that neither a yield loop nor a chain of
  // zero-delay timers can hang a run.
  std::uint64_t step_limit = std::numeric_limits<std::uint64_t>::max();
  // PCT places its change points uniformly in [1, min(step_limit, pct_horizon_steps)]: the
  // expected length of a run.
  std::uint64_t pct_horizon_steps = 10'000;
  // Share one pool between the worlds a thread runs one after another, so they reuse warm stacks.
  // Null: the world makes its own.
  std::shared_ptr<StackPool> stack_pool = nullptr;
  // A systematic explorer's hook (sim/choice.h): when set, it makes every pick instead of the
  // strategy. Not owned; outlives the Scheduler.
  ChoiceSource* chooser = nullptr;
  // Timer callbacks due at one virtual instant: the next to fire is one of the first this many
  // in schedule order, drawn from the seed's "instant-order" stream (or picked by the chooser's
  // pick_order). 1: strictly in schedule order. Nothing orders events of one instant in a real
  // system (two messages that arrive together, a reply and its timeout), so a world gives the
  // seed this choice where virtual time leaves none; an event overtakes at most window - 1 of
  // those scheduled before it (deliveries of one instant are reordered within that bound).
  std::size_t same_instant_window = 1;
};

// Thrown out of the blocking calls of a killed node's fibers to unwind them. Deliberately not a
// std::exception: runtime code catches std::exception and must let this one through.
struct Killed {};

enum class RunStatus {
  kIdle,        // nothing runnable, no sleeper, no timer, no blocked fiber (paused ones may remain)
  kStopped,     // stop() was called
  kTimeLimit,   // the next event lies beyond virtual_time_limit_ns
  kStepLimit,   // step_limit reached
  kDeadlock,    // fibers are blocked and nothing is left that could wake them
  kFiberError,  // an exception escaped a fiber body or a timer callback: see fiber_error()
  kTimeReached,  // run_until(t): nothing is left to do at or before t
};

std::string_view to_string(RunStatus status);

class Scheduler {
 public:
  using Waiter = sim::Waiter;

  // REQUIRES: called on a thread's main context, with no other live Scheduler on the thread
  // (Boost installs the scheduling algorithm per thread). Checked.
  explicit Scheduler(SchedulerOptions options);
  // Kills every node and unwinds every fiber still alive, then gives the thread back to Boost's
  // round_robin. Pending timers are dropped without running.
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // True virtual time; starts at 0.
  std::int64_t now_ns() const { return now_ns_; }
  // Fiber switches so far.
  std::uint64_t steps() const { return steps_; }
  // PCT: how many of the run's change points its steps have passed so far (each one a demotion
  // of the fiber that ran last); a run shorter than the horizon passes fewer than were drawn.
  std::size_t pct_change_points_passed() const { return next_change_point_; }
  // The steps PCT drew for its change points, in the order they pass (ascending).
  const std::vector<std::uint64_t>& pct_change_steps() const { return pct_change_steps_; }
  std::uint64_t timers_fired() const { return timers_fired_; }

  // Starts a fiber on `node` (its current incarnation). It first runs during run(). Allowed from
  // the main context, a fiber or a timer callback; ignored during teardown.
  void spawn(NodeId node, std::string name, std::function<void()> body);
  // The node of the running fiber; kWorldNode on the main context.
  NodeId current_node() const;
  // The running fiber's name; empty on the main context.
  std::string_view current_fiber_name() const;

  // The blocking calls: from a fiber only. Each throws Killed if the fiber's node was killed.
  // A time at or before now only yields.
  void sleep_until(std::int64_t time_ns);
  void sleep_for(std::int64_t duration_ns);
  // sleep_until(time_ns) for a sleep measured on the node's own clock, which reads `local_wake_ns`
  // at `time_ns`: retime_local_sleeps moves it when that clock's rate changes meanwhile.
  void sleep_until_local(std::int64_t time_ns, std::int64_t local_wake_ns);
  // A node's clock changed its rate: each of its fibers sleeping on that clock wakes at
  // `true_time_of(its local wake)` instead (an OS wakes a monotonic sleep when the clock reads the
  // deadline, however fast the clock ran meanwhile). From the main context or a timer callback.
  void retime_local_sleeps(NodeId node,
                           const std::function<std::int64_t(std::int64_t)>& true_time_of);
  // Lets another runnable fiber go first (the caller is not a candidate for this pick).
  void yield();
  // Parks until wake(waiter). A wake that came first is consumed and block returns at once.
  // REQUIRES: no other fiber is blocked on the same waiter.
  void block(Waiter& waiter);
  // Makes the blocked fiber ready (held until resume if its node is paused), or, if none is
  // blocked, leaves a wake for the next block(). From a fiber, a timer callback or the main
  // context. Waking a slot whose fiber was killed only leaves a wake behind: the killed fiber was
  // already detached from the slot and is unwinding.
  void wake(Waiter& waiter);

  // Runs fn on the scheduler's own (main) context at virtual time `time_ns` (now, if earlier).
  // Timers of equal time fire in the order they were scheduled, or in a seeded order within
  // SchedulerOptions::same_instant_window. A callback must not block; it may
  // spawn, wake, schedule timers, pause, resume or kill nodes, and stop the run.
  void at(std::int64_t time_ns, Callback fn);

  // SIGSTOP / SIGCONT. While paused, none of the node's fibers runs; sleeps that expire meanwhile
  // and wakes that arrive are kept and run, overdue, after resume. A fiber that pauses its own node
  // stops at its next switch. Pausing a paused node or resuming a running one does nothing.
  void pause_node(NodeId node);
  void resume_node(NodeId node);
  bool node_paused(NodeId node) const;
  // Crash: every fiber of the node's current incarnation unwinds by Killed at its next resumption
  // (blocked and sleeping ones are made ready now to unwind). The node stops being paused, and
  // fibers spawned on it later belong to a new incarnation.
  void kill_node(NodeId node);
  std::uint64_t node_incarnation(NodeId node) const;
  // Tells the explorer's hook (if any) that the running fiber's step touched `object` (a node, or
  // kTouchAll). Does nothing on the main context or without a hook.
  void note_touch(std::uint32_t object);
  // Told of every fiber that becomes ready (and of those a pause takes aside), with whether its
  // paused node held it: the fault ledger's view of what a pause did (sim/fault_ledger.h).
  void set_ready_hook(std::function<void(NodeId node, bool held)> hook) {
    ready_hook_ = std::move(hook);
  }
  // From now on the strategy's draws (random walk's picks, new fibers' PCT priorities) and the
  // order of events due at one instant come from streams of `seed` (World::reseed).
  void reseed(std::uint64_t seed);
  ChoiceSource* chooser() const { return options_.chooser; }

  // Runs until idle, stop(), a limit, a deadlock or a fiber error (see RunStatus). The deadlock
  // rule: when no fiber is runnable and no sleeper or timer is pending, any fiber blocked on a
  // Waiter (whatever its node's state) or parked outside the Scheduler makes it kDeadlock; fibers
  // that are only held by a paused node make it kIdle, since a fault plan may still resume the
  // node from outside (a pending timer is what keeps a run going, and then it is no deadlock yet).
  // REQUIRES: the main context; not reentrant.
  RunStatus run();
  // The same, but also returns kTimeReached, with now_ns() == time_ns, once nothing is left to do
  // at or before time_ns. If the world goes idle first, time still moves on to time_ns.
  RunStatus run_until(std::int64_t time_ns);
  // run() returns kStopped after the current step (the running fiber goes on until its next
  // switch; a timer batch stops after the current callback). Reset when run() returns it.
  void stop();

  // The first exception that escaped a fiber body or a timer callback, with the fiber's name.
  std::string fiber_error() const { return fiber_error_; }
  // A fiber that cannot go on by itself: blocked on a Waiter, parked outside the Scheduler, or
  // ready but held by its paused node. `waits_on` is what it waits for, in fixed words (the
  // Waiter's own text, never an id the scheduler made up).
  struct StuckFiber {
    std::string name;
    NodeId node = kWorldNode;
    std::uint64_t incarnation = 0;
    std::string waits_on;
    std::int64_t since_ns = 0;  // when it parked (0 for one held by a paused node)
  };
  // The fibers behind the last kDeadlock (or now), in spawn order.
  std::vector<StuckFiber> stuck_fibers() const;
  // The same, in words: names, nodes, what each waits on and since when.
  std::string deadlock_report() const;
  std::size_t live_fibers() const { return live_.size(); }
  std::size_t pending_timers() const { return timer_heap_.size(); }

 private:
  friend class SimAlgorithm;

  // Called by SimAlgorithm, inside Boost's noexcept hooks.
  FiberRecord* adopt_pending(boost::fibers::context* context) noexcept;
  void on_ready(FiberRecord* fiber) noexcept;
  boost::fibers::context* pick_worker() noexcept;
  FiberRecord* pick_by_chooser() noexcept;
  // The dispatcher is about to run, and it frees every ended fiber first.
  void on_dispatcher_runs() noexcept { ended_unreleased_ = 0; }
  bool has_ended_unreleased() const noexcept { return ended_unreleased_ > 0; }

  RunStatus run_loop(std::optional<std::int64_t> until_ns);
  std::optional<RunStatus> interruption() const;
  std::optional<std::int64_t> next_event_ns() const;
  void fire_due_events();
  // A pending timer: its key orders it, its callback waits in timer_slots_[slot].
  struct TimerEntry {
    EventKey key;
    std::uint32_t slot = 0;
  };
  static bool later_timer(const TimerEntry& a, const TimerEntry& b) { return a.key > b.key; }
  // Takes the next timer to fire out of the heap (see fire_due_events).
  TimerEntry take_due_timer();
  void fire_timer(TimerEntry due);
  bool has_stuck_fibers() const;

  void fiber_main(FiberRecord* fiber);
  void finish_fiber(FiberRecord* fiber, const std::string& error);
  void record_error(std::string message);
  FiberRecord* current_fiber() const;
  FiberRecord* current_fiber_checked(const char* call) const;
  void unwind_if_killed(FiberRecord* fiber);
  void park(FiberRecord* fiber, FiberState state);
  void make_ready(FiberRecord* fiber);
  NodeState& node_state(NodeId node) { return nodes_[node]; }
  void teardown() noexcept;

  SchedulerOptions options_;
  std::shared_ptr<StackPool> stack_pool_;
  Rng rng_;
  Rng order_rng_;  // the order of events due at one instant (its own stream: see fire_due_events)
  SimAlgorithm* algorithm_ = nullptr;  // owned by Boost's per-thread scheduler

  ReadyQueue ready_;
  std::function<void(NodeId, bool)> ready_hook_;
  std::map<NodeId, NodeState> nodes_;
  std::map<std::uint64_t, std::unique_ptr<FiberRecord>> live_;  // by spawn sequence
  std::map<EventKey, FiberRecord*> sleepers_;
  // The timers: a min-heap by key of entries whose callbacks stay put in slots reused after they
  // fire (no allocation per timer once a world has warmed up; same order as a map by key).
  std::vector<TimerEntry> timer_heap_;
  std::vector<Callback> timer_slots_;
  std::vector<std::uint32_t> free_timer_slots_;
  std::vector<TimerEntry> due_timers_;  // reused by take_due_timer
  FiberRecord* pending_spawn_ = nullptr;
  FiberRecord* last_picked_ = nullptr;

  std::vector<std::uint64_t> pct_change_steps_;  // ascending
  std::vector<Candidate> candidates_;            // reused by every pick of the chooser
  std::size_t next_change_point_ = 0;

  std::int64_t now_ns_ = 0;
  std::uint64_t steps_ = 0;
  std::uint64_t timers_fired_ = 0;
  std::uint64_t next_fiber_sequence_ = 1;
  std::uint64_t next_event_sequence_ = 0;
  std::uint64_t teardown_steps_ = 0;
  // Ended fibers keep their stacks until the dispatcher runs, which it otherwise does only when no
  // worker is runnable: a world that always has one would pile up stacks.
  std::size_t ended_unreleased_ = 0;
  bool stop_requested_ = false;
  bool running_ = false;
  bool tearing_down_ = false;
  std::string fiber_error_;
};

}  // namespace fencesim::sim
