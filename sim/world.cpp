#include "sim/world.h"

#include <fmt/format.h>

#include <algorithm>

#include "runtime/check.h"
#include "runtime/errors.h"
#include "runtime/instance.h"
#include "sim/world_incarnation.h"
#include "runtime/execution_context.h"

namespace fencesim::sim {

using runtime::kSecond;

std::string_view to_string(RunOutcome outcome) {
  switch (outcome) {
    case RunOutcome::kCompleted:
      return "completed";
    case RunOutcome::kLiveness:
      return "liveness";
    case RunOutcome::kHarnessError:
      return "harness-error";
  }
  return "unknown";
}

// Stamps a node's runtime events with true time and the node's clock, records them, and fires
// the fault triggers armed on them.
class World::NodeObserver final : public runtime::Observer {
 public:
  NodeObserver(World& world, NodeId node) : world_(world), node_(node) {}
  void on_event(const runtime::RuntimeEvent& event) override {
    world_.on_runtime_event(node_, event);
  }

 private:
  World& world_;
  NodeId node_;
};

World::World(WorldOptions options) : options_(std::move(options)) {
  SchedulerOptions scheduler_options;
  scheduler_options.seed = derive_stream(options_.seed, "scheduler").next();
  scheduler_options.strategy = options_.strategy;
  scheduler_options.pct_change_points = options_.pct_change_points;
  scheduler_options.same_instant_window = options_.same_instant_window;
  scheduler_options.step_limit = options_.step_limit;
  scheduler_options.virtual_time_limit_ns =
      options_.safety_phase_ns + options_.liveness_budget_ns + kSecond;
  scheduler_options.stack_pool = options_.stack_pool;
  scheduler_options.chooser = options_.chooser;
  scheduler_ = std::make_unique<Scheduler>(scheduler_options);
  history_.set_keep_events(options_.keep_events);
  history_.set_hash_scheme(options_.history_hash_scheme);
  network_ = std::make_unique<Network>(
      *scheduler_, derive_stream(options_.seed, "network"), options_.network,
      [this](NodeId from, NodeId to, const std::string& what, const char* why) {
        record(from, WorldEventKind::kMessageLost,
               fmt::format("{} -> {}: {} ({})", names_[from], names_[to], what, why));
      });
  network_->set_paused_probe([this](NodeId node) { return scheduler_->node_paused(node); });
  network_->set_ledger(&ledger_);
  scheduler_->set_ready_hook(
      [this](NodeId node, bool held) { ledger_.fiber_readied(node, held, scheduler_->now_ns()); });
  add_node("world", NodeKind::kWorld);
}

World::~World() {
  // Fibers reference the instances, stores and envs: end them all before any member goes.
  scheduler_.reset();
}

NodeId World::add_node(const std::string& name, NodeKind kind) {
  check(!find_node(name).has_value(), "node names are unique");
  const auto node = static_cast<NodeId>(names_.size());
  names_.push_back(name);
  kinds_.push_back(kind);
  // Every node's wall clock starts at the same epoch; faults make them disagree.
  clocks_.emplace_back(1'700'000'000 * kSecond);
  envs_.emplace_back(*scheduler_, node, clocks_.back(),
                     derive_stream(options_.seed, "node/" + name));
  observers_.push_back(std::make_unique<NodeObserver>(*this, node));
  return node;
}

void World::reseed(std::uint64_t seed) {
  scheduler_->reseed(derive_stream(seed, "scheduler").next());
  network_->reseed(derive_stream(seed, "network"));
  choices_.emplace(derive_stream(seed, "choices"));
  for (std::size_t node = 0; node < envs_.size(); ++node) {
    envs_[node].reseed(derive_stream(seed, "node/" + names_[node]));
  }
}

std::optional<NodeId> World::find_node(const std::string& name) const {
  for (std::size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) return static_cast<NodeId>(i);
  }
  return std::nullopt;
}

NodeId World::node_named(const std::string& name) const {
  const std::optional<NodeId> node = find_node(name);
  if (!node) throw std::invalid_argument(fmt::format("unknown node '{}'", name));
  return *node;
}

NodeId World::add_lease_store(const std::string& name) {
  check(store_node_ == kWorldNode, "one lease store per world");
  store_node_ = add_node(name, NodeKind::kStore);
  leases_ =
      std::make_unique<RestartableLeaseStore>(envs_[store_node_], *observers_[store_node_], name);
  checkpoints_ =
      std::make_unique<runtime::MemoryCheckpointStore>(*leases_, *observers_[store_node_], name);
  return store_node_;
}

void World::inherit_lease(const runtime::Lease& lease) {
  check(store_node_ != kWorldNode, "a world has a lease store before it inherits a row");
  check(scheduler_->now_ns() == 0, "a row is inherited before the run");
  leases_->inherit(lease);
  StoreCall call;
  call.op = StoreOp::kRestore;
  call.store = interned_.intern(std::string_view(names_[store_node_]));
  call.key = interned_.intern(lease.key);
  call.holder = interned_.intern(std::string_view(lease.holder));
  call.token = lease.token;
  call.store_wall_ns = store_wall_ns(store_node_);
  call.outcome = interned_.intern(std::string_view("ok"));
  call.lease = intern_lease(lease, call.key);
  record_store_call(store_node_, std::move(call));
}

NodeId World::add_checkpoint_store(const std::string& name) {
  check(store_node_ != kWorldNode, "the lease store is added before the checkpoint store");
  check(checkpoint_node_ == kWorldNode, "one checkpoint store per world");
  check(incarnations_.empty() && start_ns_.empty(),
        "the checkpoint store is added before the instances");
  checkpoint_node_ = add_node(name, NodeKind::kStore);
  return checkpoint_node_;
}

std::optional<NodeId> World::checkpoint_store() const {
  if (checkpoint_node_ == kWorldNode) return std::nullopt;
  return checkpoint_node_;
}

Route World::checkpoint_route(NodeId from) {
  if (checkpoint_node_ == kWorldNode) return Route{*network_, from, store_node_, this};
  return Route{*network_, from, checkpoint_node_, this, store_node_};
}

NodeId World::add_sink(const std::string& name, std::unique_ptr<runtime::Sink> sink) {
  const NodeId node = add_node(name, NodeKind::kSink);
  if (!sink && options_.sink_factory) sink = options_.sink_factory(name, *observers_[node]);
  if (!sink) sink = std::make_unique<runtime::MemorySink>(name, *observers_[node]);
  sinks_.emplace(name, SinkNode{node, std::move(sink)});
  return node;
}

NodeId World::add_instance(const std::string& name, std::int64_t start_ns) {
  check(store_node_ != kWorldNode, "the lease store is added before instances");
  const NodeId node = add_node(name, NodeKind::kInstance);
  incarnation_count_[node] = 0;
  start_ns_[node] = start_ns;
  return node;
}

void World::start_incarnation(NodeId node) {
  const int number = ++incarnation_count_[node];
  Route to_store{*network_, node, store_node_, this};
  const std::string& store = names_[store_node_];
  auto incarnation = std::make_unique<Incarnation>(
      Incarnation{RemoteLeaseRepository(to_store, *leases_, store),
                  RemoteCheckpointStore(checkpoint_route(node), *checkpoints_, store),
                  RemotePlacementQueue(to_store, queue_, store),
                  {},
                  nullptr});
  for (auto& [name, sink] : sinks_) {
    incarnation->sinks.emplace(
        name, std::make_unique<RemoteSink>(Route{*network_, node, sink.node, this}, *sink.sink));
  }
  runtime::InstanceOptions options;
  // A holder id names the process incarnation: a restarted instance is a new holder.
  options.holder = number == 1 ? names_[node] : fmt::format("{}#{}", names_[node], number);
  options.lease = options_.lease.runtime_policy();
  options.poll_interval_ns = options_.poll_interval_ns;
  incarnation->instance = std::make_unique<runtime::Instance>(
      envs_[node], incarnation->leases, incarnation->checkpoints, incarnation->queue, workflows_,
      *observers_[node], options);
  incarnation->instance->start();
  incarnations_[node] = std::move(incarnation);
}

void World::submit(const runtime::LeaseKey& key, const std::string& workflow, std::int64_t at_ns) {
  // A root with a child's (reserved) execution id is bad input: refused now, not inside the run.
  if (runtime::is_child_execution_id(key.lease_execution_id)) {
    throw runtime::PlacementError("submit: a root's execution id may not start with '" +
                                  std::string(runtime::kChildExecutionPrefix) +
                                  "' (reserved for AnyInstance children): " + key.lease_execution_id);
  }
  submitted_.push_back(key);
  submissions_.push_back(Submission{key, workflow, at_ns});
  if (at_ns <= 0) {
    place_root(key, workflow);
    return;
  }
  scheduler_->at(at_ns, [this, key, workflow] { place_root(key, workflow); });
}

bool World::client_place(const runtime::LeaseKey& key, const std::string& workflow) {
  StoreCall call;
  call.op = StoreOp::kPlace;
  call.store = interned_.intern(std::string_view(names_[store_node_]));
  call.key = interned_.intern(key);
  call.argument = interned_.intern(std::string_view(workflow));
  call.store_wall_ns = store_wall_ns(store_node_);
  call.sent_ns = now_ns();
  call.outcome = interned_.intern(std::string_view("ok"));
  bool placed = true;
  try {
    queue_.place(key, workflow, std::nullopt);
  } catch (const runtime::PlacementError& e) {
    call.outcome = interned_.intern(std::string("refused: ") + e.what());
    placed = false;
  }
  record_store_call(store_node_, std::move(call));
  return placed;
}

void World::place_root(const runtime::LeaseKey& key, const std::string& workflow) {
  // submit() refused a reserved id already: the queue has no reason left to refuse a submission.
  check(client_place(key, workflow), "a submitted root is placed");
}

runtime::Nanoseconds World::store_wall_ns(NodeId store) const {
  return clocks_[store].wall_at(scheduler_->now_ns());
}

std::int64_t World::now_ns() const {
  return scheduler_->now_ns();
}

runtime::Nanoseconds World::monotonic_ns(NodeId node) const {
  return clocks_[node].monotonic_at(scheduler_->now_ns());
}

void World::record_store_call(NodeId store, StoreCall&& call) {
  if (!call.failed && call.op == StoreOp::kPlace) placed_.insert(call.key);
  if (!call.failed && call.op == StoreOp::kFinish) finished_.insert(call.key);
  HistoryEvent event = stamped(store, WorldEventKind::kStoreCall);
  event.store = history_.keep_store_call(std::move(call));
  keep(std::move(event));
}

void World::observe(runtime::ExecutionContext& context, Observation observation) {
  HistoryEvent event = stamped(node_of(context), WorldEventKind::kObserved);
  event.runtime.holder = interned_.intern(std::move(observation.what));
  event.runtime.key = interned_.intern(observation.lease);
  event.runtime.token = observation.token;
  event.runtime.step = interned_.intern(std::string_view(context.path()));
  event.runtime.scope_key = interned_.intern(std::move(observation.sink));
  event.runtime.detail = interned_.intern(std::move(observation.effect));
  event.runtime.value = observation.began_ns;
  event.detail = interned_.intern(std::move(observation.outcome));
  keep(std::move(event));
}

runtime::Sink& World::sink(runtime::ExecutionContext& context, const std::string& name) {
  if (stage_ != nullptr) return stage_->sink(context, name);
  auto* env = dynamic_cast<SimEnv*>(&context.env());
  check(env != nullptr, "a step of a simulated world runs on a SimEnv");
  auto it = incarnations_.find(env->node());
  check(it != incarnations_.end(), "the step's node is a live instance");
  auto sink = it->second->sinks.find(name);
  if (sink == it->second->sinks.end()) {
    throw std::invalid_argument(fmt::format("unknown sink '{}'", name));
  }
  return *sink->second;
}

bool World::within_assumptions() const {
  std::vector<std::string> stores;
  for (std::size_t i = 0; i < names_.size(); ++i) {
    if (kinds_[i] == NodeKind::kStore) stores.push_back(names_[i]);
  }
  return sim::within_assumptions(plan_, options_.lease.drift_bound_ppm, stores);
}

void World::withdraw_at(std::int64_t at_ns, const std::string& instance, runtime::LeaseKey tree,
                        std::string step_path, runtime::StepBody body) {
  const NodeId node = node_named(instance);
  scheduler_->at(at_ns, [this, node, tree = std::move(tree), step_path = std::move(step_path),
                         body = std::move(body)] {
    scheduler_->spawn(node, "withdrawal", [this, node, tree, step_path, body] {
      auto it = incarnations_.find(node);
      if (it == incarnations_.end()) return;
      // The client's side of the withdrawal: when it began and what withdraw() gave back (the
      // decided error, which refusal-hands-over judges; the runtime's own withdrawal-ended event
      // only says what it decided).
      auto record = [&](std::string what, std::string outcome) {
        HistoryEvent event = stamped(node, WorldEventKind::kObserved);
        event.runtime.holder = interned_.intern(std::move(what));
        event.runtime.key = interned_.intern(tree);
        event.runtime.step = interned_.intern(std::string_view(step_path));
        event.detail = interned_.intern(std::move(outcome));
        keep(std::move(event));
      };
      record("withdrawal-began", "");
      const std::exception_ptr returned = it->second->instance->withdraw(tree, step_path, body);
      std::string outcome = "ok";
      if (returned) {
        try {
          std::rethrow_exception(returned);
        } catch (const runtime::ExecutionError& error) {
          outcome = std::string(error.code());
        } catch (const std::exception& error) {
          outcome = std::string("error: ") + error.what();
        } catch (...) {
          outcome = "error: not a std::exception";
        }
      }
      record("withdrawal-returned", std::move(outcome));
    });
  });
}

void World::cancel_at(std::int64_t at_ns, runtime::LeaseKey tree) {
  check(store_node_ != kWorldNode, "the lease store is added before a cancel is scheduled");
  scheduler_->at(at_ns, [this, tree = std::move(tree)] {
    scheduler_->spawn(kWorldNode, "cancel client", [this, tree] {
      RemoteCheckpointStore& store =
          *cancel_clients_.emplace_back(std::make_unique<RemoteCheckpointStore>(
              checkpoint_route(kWorldNode), *checkpoints_, names_[store_node_]));
      for (;;) {
        record_cancel_request(tree, "sent");
        bool answered = true;
        runtime::CancelStatus status = runtime::CancelStatus::kRecorded;
        try {
          status = store.request_cancel(tree);
        } catch (const runtime::StoreUnavailableError&) {
          answered = false;
        }
        if (answered) {
          record_cancel_request(tree, std::string(runtime::to_string(status)));
          return;
        }
        record_cancel_request(tree, "no-reply");
        scheduler_->sleep_for(kSecond);
      }
    });
  });
}

void World::record_cancel_request(const runtime::LeaseKey& tree, std::string what) {
  HistoryEvent event = stamped(kWorldNode, WorldEventKind::kCancelRequest);
  event.runtime.key = interned_.intern(tree);
  event.detail = fmt::format("cancel of ({}, {}): {}", tree.tenant_id, tree.lease_execution_id,
                             what);
  event.runtime.detail = interned_.intern(std::move(what));
  keep(std::move(event));
}

NodeId World::node_of(runtime::ExecutionContext& context) const {
  if (stage_ != nullptr) return stage_->node_of(context);
  auto* env = dynamic_cast<SimEnv*>(&context.env());
  check(env != nullptr, "a step of a simulated world runs on a SimEnv");
  return env->node();
}

void World::mark(runtime::ExecutionContext& context, const std::string& name) {
  record(node_of(context), WorldEventKind::kMark, name);
}

void World::intend(runtime::ExecutionContext& context, const std::string& sink,
                   std::string_view effect, const std::string& payload, runtime::Token token,
                   bool at_most_once) {
  HistoryEvent event = stamped(node_of(context), WorldEventKind::kIntent);
  event.runtime.holder = interned_.intern(std::string_view(sink));
  event.runtime.key = interned_.intern(context.tree_key());
  event.runtime.step = interned_.intern(std::string_view(context.path()));
  event.runtime.detail = interned_.intern(effect);
  event.runtime.token = token;
  event.runtime.value = at_most_once ? 1 : 0;
  event.detail = interned_.intern(std::string_view(payload));
  keep(std::move(event));
}

std::size_t World::choose(std::string_view what, std::size_t count) {
  check(count >= 1, "a choice has at least one alternative");
  if (options_.chooser != nullptr) {
    // A data choice inside a fiber's step makes the step's effects depend on it: conservative.
    scheduler_->note_touch(kTouchAll);
    const std::size_t index = options_.chooser->pick_value(what, count);
    check(index < count, "a ChoiceSource picks one of the alternatives");
    return index;
  }
  if (!choices_) choices_.emplace(derive_stream(options_.seed, "choices"));
  return static_cast<std::size_t>(choices_->below(count));
}

void World::measure(NodeId node, const std::string& name, std::int64_t value) {
  check(!name.empty(), "a figure has a name");
  check(name.find(' ') == std::string::npos, "a figure's name is one word");
  record(node, WorldEventKind::kMeasure, name + " " + std::to_string(value));
}

HistoryEvent World::stamped(NodeId node, WorldEventKind kind) const {
  HistoryEvent event;
  event.time_ns = scheduler_->now_ns();
  event.node = node;
  event.local_monotonic_ns = clocks_[node].monotonic_at(event.time_ns);
  event.world = kind;
  return event;
}

void World::record(NodeId node, WorldEventKind kind, std::string detail) {
  HistoryEvent event = stamped(node, kind);
  event.detail = interned_.intern(std::move(detail));
  keep(std::move(event));
}

void World::keep(HistoryEvent event) {
  if (stage_ != nullptr) {
    const NodeId node = event.node;
    stage_->record(node, std::move(event));
    return;
  }
  history_.record(std::move(event));
}

std::int64_t World::true_now_ns() const {
  return stage_ != nullptr ? stage_->now_ns() : scheduler_->now_ns();
}

void World::on_runtime_event(NodeId node, const runtime::RuntimeEvent& event) {
  HistoryEvent entry = stamped(node, WorldEventKind::kRuntime);
  // Interned as RuntimeRecord(event, interned_) would, through the node's last names: a node's
  // events mostly repeat its holder, tree and scope key.
  if (recent_names_.size() <= node) recent_names_.resize(node + 1);
  RecentRuntimeNames& recent = recent_names_[node];
  RuntimeRecord& record = entry.runtime;
  record.kind = event.kind;
  record.holder = recent.holder.intern(interned_, event.holder);
  record.key = NameKey(recent.tenant_id.intern(interned_, event.key.tenant_id),
                       recent.lease_execution_id.intern(interned_, event.key.lease_execution_id));
  record.scope_key = recent.scope_key.intern(interned_, event.scope_key);
  record.token = event.token;
  record.step = recent.step.intern(interned_, event.step);
  record.detail = recent.detail.intern(interned_, event.detail);
  record.value = event.value;
  if (event.kind == runtime::EventKind::kTreeStarted) {
    open_passes_.emplace(node, record.key);
  } else if (event.kind == runtime::EventKind::kTreeAbandoned ||
             event.kind == runtime::EventKind::kTreeCompleted ||
             event.kind == runtime::EventKind::kTreeCancelled) {
    open_passes_.erase({node, record.key});
  }
  history_.record(std::move(entry));
  for (const std::shared_ptr<MomentWatch>& watch : moment_watches_) {
    if (watch->over || watch->node != node || watch->kind != event.kind ||
        watch->lease != event.key) {
      continue;
    }
    watch->came = true;
    watch->over = true;
    scheduler_->wake(watch->waiter);
  }
  if (quiet_) return;
  if (aims_deadlines_) track_deadlines(node, event);
  for (Armed& armed : armed_) {
    const Trigger& trigger = *armed.fault.trigger;
    const std::string& at_node = trigger.at_node.empty() ? armed.fault.node : trigger.at_node;
    if (trigger.event != event.kind || at_node != names_[node]) continue;
    if (++armed.seen != trigger.occurrence) continue;
    const Fault fault = armed.fault;
    if (trigger.aimed()) {
      aim(fault, node, event);
    } else if (trigger.delay_ns == 0) {
      // At the protocol moment itself: a pause takes the node at its next switch, and what the
      // node sends from now on is held with it.
      apply(fault);
    } else {
      scheduler_->at(scheduler_->now_ns() + trigger.delay_ns, [this, fault] {
        if (!quiet_) apply(fault);
      });
    }
  }
}

bool World::tree_ended(const runtime::LeaseKey& key, bool root) {
  const runtime::Checkpoint checkpoint = checkpoints_->load(key);
  if (!root) {
    // Judged by the queue's and the checkpoint store's records of what they handled, not by the
    // queue's own list of pending placements.
    return (checkpoint.tree_completed || checkpoint.cancelled) && finished_.contains(key);
  }
  const std::optional<runtime::Placement> placement = queue_.find(key);
  const bool placement_finished = !placement || placement->finished;
  // A tree has ended once its end is recorded AND its placement is finished: a completed tree
  // left pending in the queue is taken again by every poll, forever (a pass that finds the tree
  // completed must finish it: a crash between the completion commit and the finish is the next
  // holder's to clean up). A cancelled tree has ended once a holder ended it (#360); a cancel
  // recorded but never acted on is work not done.
  if (checkpoint.tree_completed && placement_finished) return true;
  return checkpoint.cancelled && placement && placement->finished;
}

bool World::epochs_spent(const runtime::LeaseKey& key) {
  const std::optional<runtime::Lease> row = leases_->read(key);
  if (!row || row->token < kLastSafeToken || row->live_at(store_wall_ns(store_node_))) {
    return false;
  }
  // Owed no completion, but every pass that began must still end (a pass left waiting for a
  // retake that cannot come would hang unseen otherwise).
  for (const auto& [node, pass_key] : open_passes_) {
    if (pass_key == key) return false;
  }
  return true;
}

bool World::all_trees_completed() {
  for (const runtime::LeaseKey& key : submitted_) {
    // A key whose epochs are spent and whose last lease is over can never be taken again: its tree
    // ends nowhere, and nobody owes its completion (ADR-0023: epochs past 2^53-1 are an error).
    if (epochs_spent(key)) continue;
    if (!tree_ended(key, true)) return false;
  }
  // Every placed tree too, not only the submitted roots: an AnyInstance child is a tree of its
  // own (#360: the children of a cancelled tree run on), and a child left placed and unfinished
  // after its parent ended is work nobody will do.
  for (const runtime::LeaseKey& key : placed_) {
    // Submitted roots are judged above (a test may finish one straight at the queue).
    if (std::find(submitted_.begin(), submitted_.end(), key) != submitted_.end()) continue;
    if (epochs_spent(key)) continue;
    if (!tree_ended(key, false)) return false;
  }
  return true;
}

RunSummary World::run() {
  check(store_node_ != kWorldNode, "a world has a lease store");
  for (const auto& [node, start_ns] : start_ns_) {
    // node = node: clang 14 (the fuzz preset) cannot capture a structured binding.
    scheduler_->at(start_ns, [this, node = node] {
      if (!incarnations_.contains(node) && incarnation_count_[node] == 0) start_incarnation(node);
    });
  }
  schedule_faults();
  record(kWorldNode, WorldEventKind::kPhase, "safety");
  RunStatus status = scheduler_->run_until(options_.safety_phase_ns);
  RunSummary summary{RunOutcome::kCompleted, {}, {}, 0, 0};
  if (status == RunStatus::kTimeReached || status == RunStatus::kIdle) {
    heal();
    record(kWorldNode, WorldEventKind::kPhase, "quiet");
    // The world's own watcher: omniscient, it reads the stores directly, once a virtual second.
    scheduler_->spawn(kWorldNode, "liveness watcher", [this] {
      while (!all_trees_completed()) scheduler_->sleep_for(kSecond);
      scheduler_->stop();
    });
    status = scheduler_->run_until(options_.safety_phase_ns + options_.liveness_budget_ns);
  }
  summary.virtual_ns = scheduler_->now_ns();
  summary.steps = scheduler_->steps();
  switch (status) {
    case RunStatus::kStopped:
      summary.outcome = RunOutcome::kCompleted;
      break;
    case RunStatus::kFiberError:
      summary.outcome = RunOutcome::kHarnessError;
      summary.detail = scheduler_->fiber_error();
      break;
    case RunStatus::kDeadlock:
      summary.outcome = RunOutcome::kLiveness;
      summary.detail = "deadlock: " + scheduler_->deadlock_report();
      summary.stuck = deadlock_terms();
      break;
    default:
      summary.outcome = RunOutcome::kLiveness;
      summary.detail =
          fmt::format("trees not completed when the run ended ({})", sim::to_string(status));
      describe_unfinished_trees(summary);
      break;
  }
  return summary;
}

}  // namespace fencesim::sim
