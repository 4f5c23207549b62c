#include "real/coordinator.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <fmt/format.h>
#include <map>
#include <sstream>

#include "properties/invariants_fence_use.h"
#include "properties/invariants_lease_timers.h"
#include "properties/marks.h"
#include "real/children.h"
#include "real/event_log.h"
#include "real/run_clock.h"
#include "real/store_links.h"
#include "real/worker.h"
#include "real/worker_stores.h"
#include "runtime/observer.h"

namespace fencesim::real {

namespace {

using properties::UsageError;
using sim::FaultKind;
using sim::WorldEventKind;

// How late, in real time, a real process's lease timer may fire and still be on time: the OS's
// wake-up latency after a sleep or a SIGCONT on a loaded machine (measured: a SIGSTOPped holder
// gave its lease up 1.7 ms after SIGCONT; the slack is 30 times that). Scaled to scenario time by
// the run's time scale: at 0.01 it allows 5 s of a 30 s lease, still far below a missed renewal
// (10 s) or a watchdog that waits for the next renewal.
constexpr std::int64_t kRealTimerSlackNs = 50'000'000;

std::atomic<int> g_interrupt{0};  // the only global: a signal handler can reach nothing else
void on_interrupt(int signal) {
  g_interrupt = signal;
}

// SIGINT and SIGTERM end the run (children killed), then the previous handlers come back.
class InterruptGuard {
 public:
  InterruptGuard() {
    g_interrupt = 0;
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    ::sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, &old_int_);
    ::sigaction(SIGTERM, &action, &old_term_);
  }
  ~InterruptGuard() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

class DiscardStage final : public sim::Stage {
 public:
  runtime::Sink& sink(runtime::ExecutionContext&, const std::string&) override {
    throw std::logic_error("no step runs in the coordinator");
  }
  sim::NodeId node_of(runtime::ExecutionContext&) const override { return sim::kWorldNode; }
  std::int64_t now_ns() const override { return 0; }
  void record(sim::NodeId, sim::HistoryEvent) override {}
};

// A temporary folder for the run's store file, lock and event files; removed at the end.
class RunFolder {
 public:
  RunFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "fencesim-real-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("cannot create a temporary folder for the run");
    }
    path_ = pattern;
  }
  ~RunFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct Process {
  pid_t pid = -1;
  int incarnation = 0;
  bool stopped = false;
  bool crashed = false;
};

class Coordinator {
 public:
  Coordinator(const RealRequest& request, sim::World& world, const std::string& folder)
      : request_(request),
        world_(world),
        folder_(folder),
        clock_(steady_now_ns(), request.scale),
        log_(folder + "/events-000-000.bin", clock_) {}

  RealRun run();

 private:
  void open_control();
  void start_instance(sim::NodeId node, bool parked = false);
  void start_when_all_ready();
  void stop_if_interrupted();
  void place_due();
  void apply(std::size_t index, bool announced);
  void apply_to_instance(std::size_t index, sim::NodeId node, bool announced);
  void read_control();
  void run_due_timers();
  void check_children();
  void heal();
  bool trees_completed();
  void stop_from_outside(sim::NodeId node);
  void wait_real(std::int64_t real_ns);

  const RealRequest& request_;
  sim::World& world_;
  std::string folder_;
  RunClock clock_;
  EventLog log_;
  Children children_;
  std::unique_ptr<RealStores> stores_;
  runtime::NullObserver null_observer_;
  std::unique_ptr<StoreClock> store_clock_;
  int control_read_ = -1;
  int control_write_ = -1;
  int order_fd_ = -1;
  std::string control_buffer_;
  sim::NodeId store_node_ = sim::kWorldNode;
  std::map<sim::NodeId, Process> processes_;
  std::vector<bool> placed_;
  std::vector<bool> applied_;
  std::vector<int> fired_;  // trigger faults announced (a restarted incarnation skips them)
  struct Timer {
    std::int64_t at_ns;
    std::function<void()> action;
  };
  std::vector<Timer> timers_;
  bool quiet_ = false;
  std::string harness_error_;
  RealRun result_;
};

void Coordinator::open_control() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("cannot create the control pipe");
  control_read_ = fds[0];
  control_write_ = fds[1];
  ::fcntl(control_read_, F_SETFL, O_NONBLOCK);
  order_fd_ = ::open((folder_ + "/order.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (order_fd_ < 0) throw std::runtime_error("cannot create the run's order lock");
}

void Coordinator::start_instance(sim::NodeId node, bool parked) {
  Process& process = processes_[node];
  ++process.incarnation;
  std::string fired;
  for (const int index : fired_) fired += (fired.empty() ? "" : ",") + std::to_string(index);
  std::vector<std::string> argv{request_.binary,
                                "real-worker",
                                "--folder",
                                folder_,
                                "--scenario",
                                request_.scenario,
                                "--seed",
                                std::to_string(request_.seed),
                                "--node",
                                world_.node_names()[node],
                                "--incarnation",
                                std::to_string(process.incarnation),
                                "--clock-start",
                                std::to_string(parked ? kAwaitStart : clock_.start_steady_ns()),
                                "--time-scale",
                                fmt::format("{}", request_.scale),
                                "--store",
                                request_.store,
                                "--control-fd",
                                std::to_string(control_write_)};
  if (!fired.empty()) argv.insert(argv.end(), {"--fired", fired});
  if (!request_.sink_double.empty()) argv.insert(argv.end(), {"--sink-double", request_.sink_double});
  if (request_.store == "postgres") {
    argv.insert(argv.end(), {"--postgres", request_.postgres, "--postgres-schema",
                             "fencesim_real_" + std::to_string(::getpid())});
  }
  process.pid = children_.spawn(argv, control_write_);
  process.stopped = false;
  process.crashed = false;
  ++result_.processes;
}

// Ctrl-C or SIGTERM: every instance process is killed, and the run ends.
void Coordinator::stop_if_interrupted() {
  if (g_interrupt == 0) return;
  children_.kill_all();
  throw Interrupted(fmt::format("interrupted by signal {}; every instance process was killed",
                                g_interrupt.load()));
}

// The ready handshake. A process takes 0.1 to 0.5 s of real time to start and open its stores
// (a PostgreSQL connection and schema among them): at scale 0.02 that is up to 25 scenario
// seconds, which shifted the story when the clock ran from the coordinator's start (a stall could
// outlast the run). Every first incarnation is started at once and parks when ready; the run
// clock starts when the last one is, and each starts its instance at its own scenario time.
void Coordinator::start_when_all_ready() {
  for (const auto& [node, start_ns] : world_.instance_starts()) start_instance(node, true);
  const std::int64_t began = steady_now_ns();
  for (;;) {
    bool ready = true;
    for (const auto& [node, start_ns] : world_.instance_starts()) {
      ready = ready && std::filesystem::exists(ready_file(folder_, node));
    }
    if (ready) break;
    stop_if_interrupted();
    check_children();
    if (!harness_error_.empty()) return;
    if (steady_now_ns() - began > 60'000'000'000LL) {
      harness_error_ = "the instance processes were not ready within 60 s of real time";
      return;
    }
    wait_real(1'000'000);
  }
  clock_.start_at(steady_now_ns());
  const std::string go = go_file(folder_);
  {
    std::ofstream out(go + ".new");
    out << clock_.start_steady_ns() << "\n";
    if (!out) throw std::runtime_error("cannot write " + go);
  }
  std::filesystem::rename(go + ".new", go);
}

void Coordinator::place_due() {
  const auto& submissions = world_.submissions();
  for (std::size_t i = 0; i < submissions.size(); ++i) {
    if (placed_[i] || submissions[i].at_ns > clock_.now_ns()) continue;
    placed_[i] = true;
    OrderLock lock(order_fd_);
    sim::StoreCall call;
    call.op = sim::StoreOp::kPlace;
    call.store = world_.node_names()[store_node_];
    call.key = submissions[i].key;
    call.argument = submissions[i].workflow;
    call.store_wall_ns = store_clock_->wall_ns();
    call.sent_ns = clock_.now_ns();
    stores_->queue().place(call.key, call.argument, std::nullopt);
    call.outcome = "ok";
    sim::HistoryEvent event;
    event.world = WorldEventKind::kStoreCall;
    event.store = std::make_shared<const sim::StoreCall>(std::move(call));
    log_.record(store_node_, std::move(event));
  }
}

// A SIGSTOP from outside never catches a process inside a recorded store call (it would hold
// the order lock): the lock is taken first, and kept until the process has stopped.
void Coordinator::stop_from_outside(sim::NodeId node) {
  Process& process = processes_[node];
  OrderLock lock(order_fd_);
  children_.signal(process.pid, SIGSTOP);
  children_.wait_stopped(process.pid);
  process.stopped = true;
}

void Coordinator::apply_to_instance(std::size_t index, sim::NodeId node, bool announced) {
  const sim::Fault& fault = world_.fault_plan().faults[index];
  Process& process = processes_[node];
  const bool running = process.pid > 0 && !process.crashed;
  const std::int64_t until = clock_.now_ns() + fault.duration_ns;
  switch (fault.kind) {
    case FaultKind::kStall:
    case FaultKind::kStop:
    case FaultKind::kMigrate: {
      if (!running) return;
      if (!announced) {
        if (fault.kind == FaultKind::kMigrate) {
          result_.not_played.push_back(describe(fault) + ": the wall step of a migration at a time");
        }
        log_.record(node, WorldEventKind::kFaultApplied, describe(fault));
        stop_from_outside(node);
        log_.record(node, WorldEventKind::kNodePaused, std::string(to_string(fault.kind)));
      }
      process.stopped = true;
      const pid_t pid = process.pid;
      timers_.push_back(Timer{until, [this, node, pid, kind = fault.kind] {
                                Process& p = processes_[node];
                                if (p.pid != pid || !p.stopped) return;
                                log_.record(node, WorldEventKind::kNodeResumed,
                                            std::string(to_string(kind)));
                                p.stopped = false;
                                children_.signal(pid, SIGCONT);
                              }});
      return;
    }
    case FaultKind::kCrash: {
      if (!running) return;
      if (!announced) {
        log_.record(node, WorldEventKind::kFaultApplied, describe(fault));
        OrderLock lock(order_fd_);
        children_.kill(process.pid);
      } else {
        children_.kill(process.pid);
      }
      process.crashed = true;
      process.stopped = false;
      log_.record(node, WorldEventKind::kNodeCrashed, "memory lost");
      if (fault.duration_ns > 0) {
        timers_.push_back(Timer{until, [this, node] {
                                  if (!processes_[node].crashed || quiet_) return;
                                  start_instance(node);
                                  log_.record(node, WorldEventKind::kNodeRestarted,
                                              fmt::format("{}#{}", world_.node_names()[node],
                                                          processes_[node].incarnation));
                                }});
      }
      return;
    }
    default:
      // Clock and link faults are the instance process's own (real/worker.cpp).
      if (!announced) log_.record(node, WorldEventKind::kFaultApplied, describe(fault));
      return;
  }
}

void Coordinator::apply(std::size_t index, bool announced) {
  const sim::Fault& fault = world_.fault_plan().faults[index];
  const std::optional<sim::NodeId> node = world_.find_node(fault.node);
  if (!node) return;
  if (world_.node_kind(*node) == sim::NodeKind::kInstance) {
    apply_to_instance(index, *node, announced);
    return;
  }
  const bool on_links = fault.kind == FaultKind::kStoreSlow || fault.kind == FaultKind::kStoreDown ||
                        fault.kind == FaultKind::kNetworkDelay ||
                        fault.kind == FaultKind::kNetworkDrop ||
                        fault.kind == FaultKind::kNetworkDuplicate ||
                        fault.kind == FaultKind::kPartition;
  if (on_links && !announced) {
    // Played by every instance process's wire at its time.
    log_.record(*node, WorldEventKind::kFaultApplied, describe(fault));
    return;
  }
  result_.not_played.push_back(describe(fault));
}

void Coordinator::read_control() {
  char buffer[512];
  for (;;) {
    const ssize_t n = ::read(control_read_, buffer, sizeof buffer);
    if (n <= 0) break;
    control_buffer_.append(buffer, static_cast<std::size_t>(n));
  }
  std::size_t end;
  while ((end = control_buffer_.find('\n')) != std::string::npos) {
    std::istringstream line(control_buffer_.substr(0, end));
    control_buffer_.erase(0, end + 1);
    long pid = 0;
    std::size_t index = 0;
    line >> pid >> index;
    if (!line || index >= world_.fault_plan().faults.size()) continue;
    fired_.push_back(static_cast<int>(index));
    if (quiet_) {
      // Announced just as the safety phase ended: the process stopped itself; it goes on.
      for (auto& [node, process] : processes_) {
        if (process.pid == pid) children_.signal(process.pid, SIGCONT);
      }
      continue;
    }
    apply(index, true);
  }
}

void Coordinator::run_due_timers() {
  const std::int64_t now = clock_.now_ns();
  std::vector<Timer> due;
  for (auto it = timers_.begin(); it != timers_.end();) {
    if (it->at_ns <= now) {
      due.push_back(std::move(*it));
      it = timers_.erase(it);
    } else {
      ++it;
    }
  }
  for (Timer& timer : due) timer.action();
}

void Coordinator::check_children() {
  for (const auto& [pid, status] : children_.reap_ended()) {
    for (auto& [node, process] : processes_) {
      if (process.pid != pid) continue;
      process.crashed = true;
      if (harness_error_.empty()) {
        harness_error_ = fmt::format(
            "instance process {} ({}) ended by itself ({}); see its message above",
            world_.node_names()[node], pid,
            WIFSIGNALED(status) ? fmt::format("signal {}", WTERMSIG(status))
                                : fmt::format("exit {}", WEXITSTATUS(status)));
      }
    }
  }
}

void Coordinator::heal() {
  quiet_ = true;
  for (auto& [node, process] : processes_) {
    if (process.stopped && !process.crashed) {
      log_.record(node, WorldEventKind::kNodeResumed, "healed");
      process.stopped = false;
      children_.signal(process.pid, SIGCONT);
    }
  }
  for (auto& [node, process] : processes_) {
    if (process.crashed) {
      start_instance(node);
      log_.record(node, WorldEventKind::kNodeRestarted,
                  fmt::format("{}#{}", world_.node_names()[node], process.incarnation));
    }
  }
  // A process that stopped itself at a trigger the moment the phase ended is resumed too.
  read_control();
  log_.record(sim::kWorldNode, WorldEventKind::kPhase, "quiet");
}

bool Coordinator::trees_completed() {
  for (const auto& submission : world_.submissions()) {
    if (!stores_->checkpoints().load(submission.key).tree_completed) return false;
  }
  return true;
}

void Coordinator::wait_real(std::int64_t real_ns) {
  ::poll(nullptr, 0, static_cast<int>(std::max<std::int64_t>(real_ns / 1'000'000, 1)));
}

RealRun Coordinator::run() {
  for (std::size_t i = 0; i < world_.node_names().size(); ++i) {
    if (world_.node_kind(static_cast<sim::NodeId>(i)) == sim::NodeKind::kStore) {
      store_node_ = static_cast<sim::NodeId>(i);
    }
  }
  store_clock_ = std::make_unique<StoreClock>(clock_);
  stores_ = open_stores(StoreSelection{request_.store, folder_ + "/store.sqlite",
                                       request_.postgres,
                                       "fencesim_real_" + std::to_string(::getpid()), ""},
                        *store_clock_, null_observer_, world_.node_names()[store_node_]);
  open_control();
  placed_.assign(world_.submissions().size(), false);
  applied_.assign(world_.fault_plan().faults.size(), false);
  const sim::WorldOptions& options = world_.options();
  const std::int64_t end_ns = options.safety_phase_ns + options.liveness_budget_ns;
  const double limit_s = request_.wall_limit_seconds > 0
                             ? request_.wall_limit_seconds
                             : 2 * static_cast<double>(clock_.to_real_ns(end_ns)) / 1e9 + 30;
  const std::int64_t wall_start = steady_now_ns();
  start_when_all_ready();
  log_.record(sim::kWorldNode, WorldEventKind::kPhase, "safety");

  std::string liveness;
  for (;;) {
    stop_if_interrupted();
    const std::int64_t now = clock_.now_ns();
    place_due();
    if (!quiet_) {
      const auto& faults = world_.fault_plan().faults;
      for (std::size_t i = 0; i < faults.size(); ++i) {
        if (faults[i].trigger || applied_[i] || faults[i].at_ns > now) continue;
        applied_[i] = true;
        apply(i, false);
      }
    }
    read_control();
    run_due_timers();
    check_children();
    if (!harness_error_.empty()) break;
    if (!quiet_ && now >= options.safety_phase_ns) heal();
    if (quiet_ && trees_completed()) break;
    if (now >= end_ns) {
      liveness = "trees not completed when the liveness budget ended";
      break;
    }
    if (static_cast<double>(steady_now_ns() - wall_start) / 1e9 > limit_s) {
      harness_error_ = fmt::format("the run passed its wall-clock limit of {:.0f} s", limit_s);
      break;
    }
    wait_real(1'000'000);
  }
  const std::int64_t ended_ns = clock_.now_ns();
  {
    // No store call is half-recorded when the processes are killed.
    OrderLock lock(order_fd_);
    children_.kill_all();
  }
  result_.wall_seconds = static_cast<double>(steady_now_ns() - wall_start) / 1e9;
  result_.report.virtual_ns = ended_ns;
  result_.report.detail = harness_error_.empty() ? liveness : harness_error_;
  if (!harness_error_.empty()) result_.report.status = properties::RunStatus::kHarnessError;
  else if (!liveness.empty()) result_.report.status = properties::RunStatus::kLiveness;
  ::close(control_read_);
  ::close(control_write_);
  ::close(order_fd_);
  return std::move(result_);
}

// Every process's events in one history: by the shared run clock, then by file (the coordinator
// first), then by each process's own sequence.
void merge_into(sim::World& world, const std::string& folder) {
  struct Entry {
    std::int64_t time;
    std::size_t file;
    std::uint64_t sequence;
    sim::HistoryEvent event;
  };
  std::vector<Entry> entries;
  std::vector<ProcessEvents> files = read_event_files(folder);
  for (std::size_t f = 0; f < files.size(); ++f) {
    for (LoggedEvent& logged : files[f].events) {
      entries.push_back(Entry{logged.event.time_ns, f, logged.sequence, std::move(logged.event)});
    }
  }
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.file != b.file) return a.file < b.file;
    return a.sequence < b.sequence;
  });
  for (Entry& entry : entries) world.adopt_event(std::move(entry.event));
}

}  // namespace

RealRun run_real(const scenarios::ScenarioRegistry& registry, const RealRequest& request,
                 const std::function<void(const sim::World&, const properties::RunReport&)>&
                     inspect) {
  const scenarios::Scenario* scenario = registry.find(request.scenario);
  if (scenario == nullptr) {
    throw UsageError(fmt::format("unknown scenario '{}' (try 'fencesim list')", request.scenario));
  }
  if (!scenario->spec_toml.empty()) {
    throw UsageError("real: scenarios from --spec files are not supported in real mode yet");
  }
  if (request.store != "sqlite" && request.store != "postgres") {
    throw UsageError(fmt::format("real: unknown store '{}' (known: sqlite, postgres)", request.store));
  }
  if (request.store == "postgres" && request.postgres.empty()) {
    throw UsageError("real: --store postgres needs --postgres CONNECTION (or FENCESIM_POSTGRES)");
  }
  if (!request.sink_double.empty() &&
      (request.sink_double != "accept-stale" || request.store != "sqlite")) {
    throw UsageError("real: the only sink double of real mode is accept-stale, on sqlite");
  }
  if (!(request.scale > 0) || request.scale > 10) {
    throw UsageError("real: --time-scale must be above 0 and at most 10");
  }
  sim::WorldOptions options;
  options.seed = request.seed;
  options.keep_events = true;
  if (scenario->configure) scenario->configure(options);
  sim::World world(options);
  DiscardStage discard;
  world.set_stage(&discard);
  scenario->build(world);
  world.set_stage(nullptr);
  // The real processes fire a trigger at its event plus its delay; a deadline is worked out only
  // by the simulated world (sim/world_aims.cpp). Refused, not fired at the wrong moment.
  for (const sim::Fault& fault : world.fault_plan().faults) {
    if (fault.trigger && fault.trigger->aimed()) {
      throw UsageError(fmt::format(
          "real: faults aimed at a deadline are not supported in real mode yet ({})",
          sim::describe(fault)));
    }
  }

  RunFolder folder;
  InterruptGuard guard;
  Coordinator coordinator(request, world, folder.path());
  RealRun run = coordinator.run();
  merge_into(world, folder.path());

  properties::RunReport& report = run.report;
  report.request.scenario = request.scenario;
  report.request.seed = request.seed;
  report.request.sink_double = request.sink_double;
  report.plan = world.fault_plan();
  report.within_assumptions = world.within_assumptions();
  report.history_hash = world.history().hash();
  report.events = world.history().size();
  for (const auto& invariant : properties::default_invariants()) {
    // renewal-cadence and timely-loss hold a timer to the deadline the store's grants imply with
    // a millisecond of slack, which a real process (scheduled by the OS, woken late after
    // SIGCONT, its events stamped when written) cannot meet: they are judged below with the
    // OS's latency allowed, in scenario time.
    const std::string_view name = invariant->name();
    if (name == "renewal-cadence" || name == "timely-loss" || name == "call-ends-at-abort") {
      continue;
    }
    invariant->check(world, report.violations);
  }
  const auto slack_ns =
      static_cast<runtime::Nanoseconds>(static_cast<double>(kRealTimerSlackNs) / request.scale);
  properties::check_lease_timers(world, slack_ns, report.violations);
  // A fenced write's call ends at the abort, which a real process reaches as late as its timers.
  const sim::LeaseTerms& lease = world.options().lease;
  properties::check_call_ends_at_abort(
      world.history().events(),
      properties::LocalExpiryPolicy{lease.drift_bound_ppm, lease.drift_margin_min_ns},
      properties::run_facts(world), report.violations,
      properties::kCallAfterAbortMaxNs + slack_ns);
  report.marks = properties::count_marks(world);
  report.figures = properties::sum_figures(world);
  if (report.status != properties::RunStatus::kHarnessError && !report.violations.empty()) {
    report.status = properties::RunStatus::kViolation;
  } else if (report.status == properties::RunStatus::kLiveness && !report.within_assumptions) {
    report.status = properties::RunStatus::kPass;
  }
  if (inspect) inspect(world, report);
  return run;
}

}  // namespace fencesim::real
