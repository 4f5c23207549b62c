#include "real/worker.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <boost/fiber/all.hpp>
#include <chrono>
#include <csignal>
#include <fmt/format.h>
#include <map>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "real/event_log.h"
#include "real/link_faults.h"
#include "real/process_env.h"
#include "real/store_links.h"
#include "real/worker_stores.h"
#include "runtime/execution_context.h"
#include "runtime/instance.h"
#include "scenarios/scenario.h"

namespace fencesim::real {

std::string ready_file(const std::string& folder, std::size_t node) {
  return fmt::format("{}/ready-{:03}", folder, node);
}

std::string go_file(const std::string& folder) {
  return folder + "/go";
}

std::string control_line(int pid, std::size_t fault_index) {
  return fmt::format("{} {}\n", pid, fault_index);
}

namespace {

// Drops what a world records while it is being built (a root's placement): the coordinator
// records the real placements.
class DiscardWhileBuilt final : public sim::Stage {
 public:
  runtime::Sink& sink(runtime::ExecutionContext&, const std::string&) override {
    throw std::logic_error("no step runs while a world is built");
  }
  sim::NodeId node_of(runtime::ExecutionContext&) const override { return sim::kWorldNode; }
  std::int64_t now_ns() const override { return 0; }
  void record(sim::NodeId, sim::HistoryEvent) override {}
};

// Records a store's (or sink's) own events at its node.
class StoreObserver final : public runtime::Observer {
 public:
  StoreObserver(EventLog& log, sim::NodeId node) : log_(log), node_(node) {}
  void on_event(const runtime::RuntimeEvent& event) override {
    sim::HistoryEvent entry;
    entry.runtime = event;
    log_.record(node_, std::move(entry));
  }

 private:
  EventLog& log_;
  sim::NodeId node_;
};

// The world as this process's steps see it: its sinks over the wire, its log, its clock.
class WorkerStage final : public sim::Stage {
 public:
  WorkerStage(EventLog& log, sim::NodeId node) : log_(log), node_(node) {}
  void add_sink(const std::string& name, std::unique_ptr<LinkedSink> sink) {
    sinks_[name] = std::move(sink);
  }
  runtime::Sink& sink(runtime::ExecutionContext&, const std::string& name) override {
    auto it = sinks_.find(name);
    if (it == sinks_.end()) throw std::invalid_argument(fmt::format("unknown sink '{}'", name));
    return *it->second;
  }
  sim::NodeId node_of(runtime::ExecutionContext&) const override { return node_; }
  std::int64_t now_ns() const override { return log_.now_ns(); }
  void record(sim::NodeId node, sim::HistoryEvent event) override {
    log_.record(node, std::move(event));
  }

 private:
  EventLog& log_;
  sim::NodeId node_;
  std::map<std::string, std::unique_ptr<LinkedSink>> sinks_;
};

// This process's part of the fault plan: the triggers that count its own events, and the faults
// on itself and its links.
class Faults {
 public:
  Faults(const WorkerArgs& args, const sim::World& world, sim::NodeId node, EventLog& log,
         ProcessEnv& env, LinkFaults& links)
      : args_(args), world_(world), node_(node), log_(log), env_(env), links_(links) {
    const auto& plan = world.fault_plan().faults;
    seen_.assign(plan.size(), 0);
    fired_.assign(plan.size(), false);
    for (const int index : args.fired) {
      if (index >= 0 && static_cast<std::size_t>(index) < plan.size()) {
        fired_[static_cast<std::size_t>(index)] = true;
      }
    }
    // Faults at a time: the links' from their start; the clock's when their time comes.
    for (const sim::Fault& fault : plan) {
      if (!fault.trigger) links_.add(fault, fault.at_ns);
    }
  }

  // A runtime event of this instance: counts it for the triggers armed on it.
  void on_event(runtime::EventKind kind) {
    const auto& plan = world_.fault_plan().faults;
    if (log_.now_ns() >= world_.options().safety_phase_ns) return;
    for (std::size_t i = 0; i < plan.size(); ++i) {
      const sim::Fault& fault = plan[i];
      if (!fault.trigger || fired_[i] || fault.trigger->event != kind) continue;
      const std::string& at = fault.trigger->at_node.empty() ? fault.node : fault.trigger->at_node;
      if (at != args_.node || ++seen_[i] != fault.trigger->occurrence) continue;
      fired_[i] = true;
      if (fault.trigger->delay_ns == 0) {
        fire(i);
      } else {
        env_.spawn("delayed fault", [this, i, delay = fault.trigger->delay_ns] {
          boost::this_fiber::sleep_for(
              std::chrono::nanoseconds(env_.run_clock().to_real_ns(delay)));
          if (log_.now_ns() < world_.options().safety_phase_ns) fire(i);
        });
      }
    }
  }

  // The clock faults whose time has come, and the end of the safety phase.
  void tick() {
    const auto& plan = world_.fault_plan().faults;
    const std::int64_t now = log_.now_ns();
    if (now >= world_.options().safety_phase_ns) {
      links_.heal();
      return;
    }
    for (std::size_t i = 0; i < plan.size(); ++i) {
      const sim::Fault& fault = plan[i];
      if (fault.trigger || fired_[i] || fault.node != args_.node || fault.at_ns > now) continue;
      if (fault.kind == sim::FaultKind::kClockDrift || fault.kind == sim::FaultKind::kClockStep) {
        fired_[i] = true;
        apply_clock(fault);
      }
    }
  }

 private:
  void apply_clock(const sim::Fault& fault) {
    log_.record(node_, sim::WorldEventKind::kFaultApplied, sim::describe(fault));
    if (fault.kind == sim::FaultKind::kClockDrift) {
      env_.node_clock().set_drift_ppm(log_.now_ns(), fault.amount);
    } else {
      env_.node_clock().step_wall(fault.amount);
    }
  }

  // At the protocol moment: a pause or a crash of this process is a real SIGSTOP, raised here so
  // that nothing more happens in it; the coordinator sends SIGCONT after the fault's duration (or
  // SIGKILL for a crash). Faults on other nodes are the coordinator's to apply.
  void fire(std::size_t index) {
    const sim::Fault& fault = world_.fault_plan().faults[index];
    const bool own = fault.node == args_.node;
    switch (own ? fault.kind : sim::FaultKind::kStoreDown) {
      case sim::FaultKind::kStall:
      case sim::FaultKind::kStop:
      case sim::FaultKind::kMigrate:
      case sim::FaultKind::kCrash: {
        log_.record(node_, sim::WorldEventKind::kFaultApplied, sim::describe(fault));
        if (fault.kind != sim::FaultKind::kCrash) {
          log_.record(node_, sim::WorldEventKind::kNodePaused, std::string(to_string(fault.kind)));
        }
        announce(index);
        ::raise(SIGSTOP);
        if (fault.kind == sim::FaultKind::kMigrate) env_.node_clock().step_wall(fault.amount);
        return;
      }
      case sim::FaultKind::kClockDrift:
      case sim::FaultKind::kClockStep:
        apply_clock(fault);
        return;
      default:
        if (own) {
          log_.record(node_, sim::WorldEventKind::kFaultApplied, sim::describe(fault));
          links_.add(fault, log_.now_ns());
        } else {
          announce(index);
        }
        return;
    }
  }

  void announce(std::size_t index) {
    const std::string line = control_line(::getpid(), index);
    if (::write(args_.control_fd, line.data(), line.size()) < 0) {
      throw std::runtime_error("cannot reach the coordinator");
    }
  }

  const WorkerArgs& args_;
  const sim::World& world_;
  sim::NodeId node_;
  EventLog& log_;
  ProcessEnv& env_;
  LinkFaults& links_;
  std::vector<int> seen_;
  std::vector<bool> fired_;
};

class InstanceObserver final : public runtime::Observer {
 public:
  InstanceObserver(EventLog& log, sim::NodeId node, Faults& faults)
      : log_(log), node_(node), faults_(faults) {}
  void on_event(const runtime::RuntimeEvent& event) override {
    sim::HistoryEvent entry;
    entry.runtime = event;
    log_.record(node_, std::move(entry));
    faults_.on_event(event.kind);
  }

 private:
  EventLog& log_;
  sim::NodeId node_;
  Faults& faults_;
};

sim::NodeId node_of_kind(const sim::World& world, sim::NodeKind kind) {
  for (std::size_t i = 0; i < world.node_names().size(); ++i) {
    if (world.node_kind(static_cast<sim::NodeId>(i)) == kind) return static_cast<sim::NodeId>(i);
  }
  throw std::runtime_error("the scenario has no lease store");
}

}  // namespace

namespace {

void run_instance(const WorkerArgs& args, sim::World& world);

}  // namespace

int worker_main(const WorkerArgs& args) {
  const scenarios::ScenarioRegistry registry = scenarios::builtin_scenarios();
  const scenarios::Scenario* scenario = registry.find(args.scenario);
  if (scenario == nullptr) throw std::runtime_error("unknown scenario " + args.scenario);
  sim::WorldOptions options;
  options.seed = args.seed;
  if (scenario->configure) scenario->configure(options);
  sim::World world(options);
  DiscardWhileBuilt discard;
  world.set_stage(&discard);
  scenario->build(world);
  // The world's simulated scheduler owns this thread's fibers: the real runtime runs on a thread
  // of its own, with Boost.Fiber's own scheduler. This thread only waits.
  std::thread instance([&] {
    try {
      run_instance(args, world);
    } catch (const std::exception& error) {
      std::fprintf(stderr, "fencesim real-worker %s: %s\n", args.node.c_str(), error.what());
      std::fflush(stderr);
      std::_Exit(5);
    }
  });
  instance.join();
  return 0;
}

namespace {

// Says this process is ready (its stores are open) and parks until the coordinator's go, whose
// CLOCK_MONOTONIC start becomes the run clock's. Nothing was recorded before: no event moves.
void await_go(const std::string& folder, sim::NodeId node, RunClock& clock) {
  const std::string ready = ready_file(folder, node);
  const int fd = ::open(ready.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot create " + ready);
  ::close(fd);
  for (;;) {
    std::ifstream in(go_file(folder));
    std::int64_t start = 0;
    if (in >> start) {
      clock.start_at(start);
      return;
    }
    boost::this_fiber::sleep_for(std::chrono::milliseconds(1));
  }
}

void run_instance(const WorkerArgs& args, sim::World& world) {
  const sim::WorldOptions& options = world.options();
  const std::optional<sim::NodeId> found = world.find_node(args.node);
  if (!found || world.node_kind(*found) != sim::NodeKind::kInstance) {
    throw std::runtime_error("no instance named " + args.node);
  }
  const sim::NodeId node = *found;
  const sim::NodeId store_node = node_of_kind(world, sim::NodeKind::kStore);
  const std::string& store_name = world.node_names()[store_node];

  RunClock clock(args.clock_start_ns == kAwaitStart ? steady_now_ns() : args.clock_start_ns,
                 args.scale);
  ProcessEnv env(clock, world.stream("real/" + args.node).next() + static_cast<std::uint64_t>(args.incarnation));
  EventLog log(fmt::format("{}/events-{:03}-{:03}.bin", args.folder, node, args.incarnation), clock);
  log.set_node_clock(node, [&env] { return env.monotonic_ns(); });
  StoreClock store_clock(clock);
  StoreObserver store_observer(log, store_node);
  const std::unique_ptr<RealStores> stores =
      open_stores(StoreSelection{args.store, args.folder + "/store.sqlite", args.postgres,
                                 args.postgres_schema, args.sink_double},
                  store_clock, store_observer, store_name);
  const int order_fd = ::open((args.folder + "/order.lock").c_str(), O_RDWR | O_CLOEXEC);
  if (order_fd < 0) throw std::runtime_error("cannot open the run's order lock");

  LinkFaults links(world.stream("real/links/" + args.node).next());
  const auto wire = [&](sim::NodeId to) {
    return Wire{log,  env,  store_clock, links, order_fd, node, args.node, to,
                world.node_names()[to], options.network.rpc_timeout_ns};
  };
  LinkedLeaseRepository leases(wire(store_node), stores->leases());
  LinkedCheckpointStore checkpoints(wire(store_node), stores->checkpoints());
  LinkedPlacementQueue queue(wire(store_node), stores->queue());
  WorkerStage stage(log, node);
  std::vector<std::unique_ptr<StoreObserver>> sink_observers;
  for (std::size_t i = 0; i < world.node_names().size(); ++i) {
    const auto sink_node = static_cast<sim::NodeId>(i);
    if (world.node_kind(sink_node) != sim::NodeKind::kSink) continue;
    sink_observers.push_back(std::make_unique<StoreObserver>(log, sink_node));
    const std::string& name = world.node_names()[i];
    stage.add_sink(name, std::make_unique<LinkedSink>(
                             wire(sink_node), stores->sink(name, *sink_observers.back())));
  }
  world.set_stage(&stage);

  Faults faults(args, world, node, log, env, links);
  InstanceObserver observer(log, node, faults);
  runtime::InstanceOptions instance_options;
  instance_options.holder =
      args.incarnation == 1 ? args.node : fmt::format("{}#{}", args.node, args.incarnation);
  instance_options.lease = options.lease.runtime_policy();
  instance_options.poll_interval_ns = options.poll_interval_ns;
  runtime::Instance instance(env, leases, checkpoints, queue, world.workflows(), observer,
                             instance_options);
  if (args.clock_start_ns == kAwaitStart) {
    await_go(args.folder, node, clock);
    // Started at its scenario time, as the simulation starts it (parked until then).
    const std::int64_t start_ns = world.instance_starts().at(node);
    const std::int64_t wait_ns = clock.to_real_ns(start_ns - clock.now_ns());
    if (wait_ns > 0) boost::this_fiber::sleep_for(std::chrono::nanoseconds(wait_ns));
  }
  instance.start();
  // Until the coordinator kills this process: the fibers run while this one sleeps.
  for (;;) {
    faults.tick();
    boost::this_fiber::sleep_for(std::chrono::milliseconds(2));
  }
}

}  // namespace

}  // namespace fencesim::real
