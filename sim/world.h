#pragma once
// A simulated world: one seeded scheduler, virtual time, simulated nodes (instances of the real
// runtime, the lease store, sinks) each with its own clock and state, a simulated network between
// them, a fault plan, and the history of everything that happened. A World is an object: create
// as many as you like, one after another, on one thread (RapidCheck runs thousands).
//
// A run has two phases: a safety phase in which the fault plan fires, then a quiet phase in which
// every fault is healed and every tree (submitted, or placed by an instance) must complete within
// the liveness budget.
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "runtime/checkpoint_store.h"
#include "runtime/observer.h"
#include "runtime/placement_queue.h"
#include "runtime/sink.h"
#include "runtime/workflow.h"
#include "sim/fault.h"
#include "sim/fault_ledger.h"
#include "sim/history.h"
#include "sim/lease_terms.h"
#include "sim/network.h"
#include "sim/node_clock.h"
#include "sim/scheduler.h"
#include "sim/sim_env.h"
#include "sim/stage.h"
#include "sim/store_record.h"

// The runtime's instance is held by pointer only: the world's users (every scenario, invariant and
// report) need not parse the runtime's pass machinery (tree_runner.h, held_lease.h), and a change
// there rebuilds the world's own files, not everything that includes this header.
// So are the stores behind the network (the lease table, an incarnation's remote stores): the
// lease table's interface (runtime/lease_repository.h) is then parsed by the files that call it,
// not by every file that names the world.
namespace fencesim::runtime {
class Instance;
class ExecutionContext;
}  // namespace fencesim::runtime

namespace fencesim::sim {
class RestartableLeaseStore;
class RemoteCheckpointStore;
struct Route;
}  // namespace fencesim::sim

namespace fencesim::sim {

struct WorldOptions {
  std::uint64_t seed = 1;
  Strategy strategy = Strategy::kRandomWalk;
  int pct_change_points = 3;  // PCT's depth less one (SchedulerOptions::pct_change_points)
  // Events due at one instant fire in a seeded order among this many (SchedulerOptions).
  std::size_t same_instant_window = 4;
  std::int64_t safety_phase_ns = 120 * runtime::kSecond;
  std::int64_t liveness_budget_ns = 600 * runtime::kSecond;  // quiet phase: trees must complete
  std::uint64_t step_limit = 20'000'000;
  NetworkOptions network;
  // The terms the oracles hold the instances to (sim/lease_terms.h); an instance runs with the
  // runtime's own defaults where they are the ADR's.
  LeaseTerms lease;
  runtime::Nanoseconds poll_interval_ns = runtime::kSecond;
  // Makes each sink; null: the runtime's MemorySink. Tests pass broken doubles here.
  std::function<std::unique_ptr<runtime::Sink>(const std::string& name, runtime::Observer&)>
      sink_factory;
  // Keep the events (for checkers and reports), or only hash them.
  bool keep_events = true;
  // How the history's hash writes names (sim/history.h): a replay of an older file asks for the
  // scheme its recorded hash was made with.
  HistoryHashScheme history_hash_scheme = kCurrentHistoryHashScheme;
  std::shared_ptr<StackPool> stack_pool;
  // A systematic explorer's hook (sim/choice.h): every pick of a fiber and every choose() asks
  // it. Null: the seeded strategy picks, and choose() draws from the run's "choices" stream.
  ChoiceSource* chooser = nullptr;
};

enum class RunOutcome {
  kCompleted,     // every tree completed in the quiet phase
  kLiveness,      // work not done within the budget (or a deadlock, or the step limit)
  kHarnessError,  // an exception escaped a simulated fiber or a callback
};
std::string_view to_string(RunOutcome outcome);

struct RunSummary {
  RunOutcome outcome;
  std::string detail;  // why, for kLiveness and kHarnessError
  // kLiveness: what the run was stuck on, without ids, sorted and each once (the failure's
  // signature): "ROLE (NODE KIND) waits on WHAT" per fiber of a deadlock, "tree: STATE" per
  // unfinished tree of a run that ran out of time or steps (sim/world_stuck.cpp).
  std::vector<std::string> stuck;
  std::int64_t virtual_ns = 0;
  std::uint64_t steps = 0;
};

enum class NodeKind { kWorld, kStore, kSink, kInstance };

// What the world made of a fault aimed at a deadline (sim::Aim) when its event came: the deadline
// and when the fault fires and ends, in true time, for the timeline to draw the fault against it.
struct FaultAim {
  std::string fault;  // describe(fault), as its kFaultApplied records it
  NodeId node = kWorldNode;
  Aim aim = Aim::kEvent;
  std::int64_t deadline_ns = -1;  // -1: no such deadline (missed says why); the fault never fired
  std::int64_t fires_ns = -1;
  Aim until = Aim::kEvent;
  std::int64_t until_deadline_ns = -1;  // until != kEvent
  std::int64_t ends_ns = -1;            // until != kEvent: when the fault is planned to end
  std::string lease;                    // the lease the deadline belongs to, in words
  std::string missed;
  // The ledger's entry (fault_effects()) of the fault once applied: the n-th kFaultApplied.
  std::optional<std::size_t> effect;
};

class World final : private StoreRecorder {
 public:
  explicit World(WorldOptions options);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // Topology. The lease store hosts the lease table, the checkpoints and the placement queue.
  NodeId add_lease_store(const std::string& name = "lease-store");
  // A row the lease store's table holds before the run (its disk from long before: a key's
  // epochs may be nearly spent), recorded as the store's kRestore call at time 0 so that the
  // oracles start from it too. Before the run, after add_lease_store.
  void inherit_lease(const runtime::Lease& lease);
  // The checkpoints reached at a node of their own (a checkpoint service in front of the lease
  // store's tables), added after the lease store and before the instances: checkpoint reads,
  // commits and cancels travel to that node, so network faults on it (a partition, drops, a slow
  // or silent service) hit them while the lease store still answers. What it handles is recorded
  // as the lease store's (one store, one set of tables), by the lease store's clock.
  NodeId add_checkpoint_store(const std::string& name = "checkpoint-store");
  // That node, if the world has one (otherwise the lease store hosts the checkpoints).
  std::optional<NodeId> checkpoint_store() const;
  // A sink node; `sink` null means the runtime's MemorySink (a test may pass a broken double).
  NodeId add_sink(const std::string& name, std::unique_ptr<runtime::Sink> sink = nullptr);
  // An instance process that starts polling at `start_ns`.
  NodeId add_instance(const std::string& name, std::int64_t start_ns = 0);
  runtime::WorkflowRegistry& workflows() { return workflows_; }
  const runtime::WorkflowRegistry& workflows() const { return workflows_; }
  // Places a root tree on the queue at virtual time `at_ns` (a client's request).
  void submit(const runtime::LeaseKey& key, const std::string& workflow, std::int64_t at_ns = 0);
  // A client's placement of a root, made during the run with whatever key the client has (a
  // hostile or confused client may use a reserved one, e.g. an AnyInstance child's key it read in
  // a log): recorded as the lease store's kPlace with the queue's verdict, "ok" or "refused: why".
  // Not a submission: the liveness watcher does not wait for it. Returns whether it was placed.
  bool client_place(const runtime::LeaseKey& key, const std::string& workflow);
  void set_fault_plan(FaultPlan plan) { plan_ = std::move(plan); }
  const FaultPlan& fault_plan() const { return plan_; }
  // Whether the fault plan stays inside the protocol's assumptions (see sim::within_assumptions).
  bool within_assumptions() const;

  // From a step: the sink `name` as reached from the step's node over the network.
  runtime::Sink& sink(runtime::ExecutionContext& context, const std::string& name);
  // A named random stream of the run (workload choices, fault draws).
  Rng stream(std::string_view name) const { return derive_stream(options_.seed, name); }
  // A choice among `count` >= 1 alternatives that an explorer enumerates (a fault's trigger, a
  // duration): the chooser's pick, or a draw from the run's "choices" stream without one.
  std::size_t choose(std::string_view what, std::size_t count);
  // From this instant on, every random draw the world itself makes comes from streams of `seed`
  // instead of the run's: the scheduler's picks and same-instant orders, the network's latencies,
  // drops and duplicates (the fault plan's network faults), choose(), and each node's runtime
  // stream. A sweep branching at a rare mark (cli/sweep_branch.h) calls it in each branch, at the
  // mark's event. Streams a scenario took at build time (world.stream) are its own and go on.
  void reseed(std::uint64_t seed);

  RunSummary run();

  const History& history() const { return history_; }
  // A hook on the history: called with each event once recorded (sim::History::set_hook).
  void set_history_hook(std::function<void(const HistoryEvent&)> hook) {
    history_.set_hook(std::move(hook));
  }
  const std::vector<std::string>& node_names() const { return names_; }
  // What each applied fault did (sim/fault_ledger.h), in the order they were applied.
  const std::vector<FaultEffect>& fault_effects() const { return ledger_.effects(); }
  // Each aimed fault whose event came, in that order (sim/world_aims.cpp).
  const std::vector<FaultAim>& fault_aims() const { return aims_; }
  NodeKind node_kind(NodeId node) const { return kinds_.at(node); }
  std::optional<NodeId> find_node(const std::string& name) const;
  const WorldOptions& options() const { return options_; }
  Scheduler& scheduler() { return *scheduler_; }
  const Scheduler& scheduler() const { return *scheduler_; }
  RestartableLeaseStore& lease_table() { return *leases_; }
  runtime::MemoryCheckpointStore& checkpoints() { return *checkpoints_; }
  runtime::MemoryPlacementQueue& queue() { return queue_; }
  const std::vector<runtime::LeaseKey>& submitted() const { return submitted_; }
  // Every submit() with its workflow and time, and each instance's start time: what a world whose
  // steps run elsewhere (real mode) replays of the topology.
  struct Submission {
    runtime::LeaseKey key;
    std::string workflow;
    std::int64_t at_ns = 0;
  };
  const std::vector<Submission>& submissions() const { return submissions_; }
  const std::map<NodeId, std::int64_t>& instance_starts() const { return start_ns_; }
  // The sinks by name, as the world's truth (effects applied).
  runtime::Sink& sink_truth(const std::string& name) { return *sinks_.at(name).sink; }

  // Records a world event.
  void record(NodeId node, WorldEventKind kind, std::string detail);
  // From a step: records that the workload reached mark `name` on the step's node.
  void mark(runtime::ExecutionContext& context, const std::string& name);
  // From a step (or a withdrawal in a step's frame): records that the workload means to have
  // `effect` at `sink` with `payload`, written under `token` (kTokenNone if the frame has no
  // fence). Recorded before the write leaves, so an effect lost on the way is still intended.
  // `at_most_once`: the effect is meant at most once (a withdrawal's: nobody re-runs it), not
  // exactly once with its step's committed outcome.
  void intend(runtime::ExecutionContext& context, const std::string& sink, std::string_view effect,
              const std::string& payload, runtime::Token token, bool at_most_once = false);
  // From a step body (or a withdrawal's): records what the body saw when its call returned or
  // threw (a WorldEventKind::kObserved event; see sim/history.h for its fields). The fence's lease
  // key and token are passed in, read by the caller before its call.
  struct Observation {
    std::string what;  // "write" or "confirm"
    runtime::LeaseKey lease;
    runtime::Token token = runtime::kTokenNone;
    std::string sink;    // write
    std::string effect;  // write
    std::int64_t began_ns = 0;  // true time the call began
    std::string outcome;        // "applied", "deduplicated", "confirmed" or "error: <what>"
  };
  void observe(runtime::ExecutionContext& context, Observation observation);
  // Records a figure the workload measured (summed per name into the run's report); `name` has no
  // space.
  void measure(NodeId node, const std::string& name, std::int64_t value);
  // At `at_ns`, instance `instance` makes a withdrawal for `tree` (a client's cancel): inside a
  // pass it runs in the running step's frame, after the tree ended without a fence.
  void withdraw_at(std::int64_t at_ns, const std::string& instance, runtime::LeaseKey tree,
                   std::string step_path, runtime::StepBody body);
  // At `at_ns`, a client asks the checkpoint store to cancel `tree` (#360). The client is the
  // world node; its request crosses the simulated network to the lease store (which hosts the
  // checkpoints), so it can be late, duplicated or lost like any message. A request that gets no
  // reply within the RPC timeout is sent again one second later, until the store answers (a
  // retry of a request that was recorded answers already-recorded): a client that keeps asking,
  // so every cancel is eventually delivered once faults end. Each send and each outcome is a
  // kCancelRequest history event; the store's recording is its kStoreCall (op cancel).
  void cancel_at(std::int64_t at_ns, runtime::LeaseKey tree);
  // From a step: blocks its fiber until its node records runtime event `kind` of `lease` (a
  // renewal of the step's own lease leaving, say), or until `timeout_ns` of true time has passed;
  // returns whether the moment came. A workload acts at a protocol moment with it, as the fault
  // triggers do: a window of a round trip that a step's own timing meets once in thousands of runs
  // (a confirm begun while the renewal timer's request is in flight). Real mode cannot see the
  // runtime's moments from a step: there it returns false at once.
  bool await_moment(runtime::ExecutionContext& context, runtime::EventKind kind,
                    const runtime::LeaseKey& lease, std::int64_t timeout_ns);
  // The node a step runs on.
  NodeId node_of(runtime::ExecutionContext& context) const;
  // True time now: the scheduler's virtual time, or the stage's when one is set.
  std::int64_t true_now_ns() const;

  // Real mode (real/): the steps of this world's definitions run elsewhere. With a stage set,
  // sink(), node_of(), true_now_ns() and the events steps record (marks, figures, intents,
  // observations) go to `stage`; null (the default) keeps them here. Such a world is never run.
  void set_stage(Stage* stage) { stage_ = stage; }
  // Appends an event that happened elsewhere, already stamped (real mode merges the processes'
  // events into the world whose invariants judge them).
  void adopt_event(HistoryEvent event) { history_.record(std::move(event)); }

 private:
  class NodeObserver;
  struct SinkNode {
    NodeId node;
    std::unique_ptr<runtime::Sink> sink;
  };
  // What an instance process holds in memory (its remote stores, its runtime instance): lost on
  // a crash. Defined in sim/world_incarnation.h, which only the world's own files include.
  struct Incarnation;

  NodeId add_node(const std::string& name, NodeKind kind);
  // A history event of `kind` on `node`, stamped with true time and the node's monotonic clock.
  HistoryEvent stamped(NodeId node, WorldEventKind kind) const;
  // Records a stamped event in the history, or hands it to the stage when one is set.
  void keep(HistoryEvent event);
  // StoreRecorder: the remote stores record what their store handled.
  runtime::Nanoseconds store_wall_ns(NodeId store) const override;
  std::int64_t now_ns() const override;
  runtime::Nanoseconds monotonic_ns(NodeId node) const override;
  void record_store_call(NodeId store, StoreCall&& call) override;
  NameKey intern(const runtime::LeaseKey& key) override { return interned_.intern(key); }
  Name intern(std::string_view text) override { return interned_.intern(text); }
  // Places a root on the queue (a client's request reaching the store), recorded as a kStoreCall.
  void place_root(const runtime::LeaseKey& key, const std::string& workflow);
  void start_incarnation(NodeId node);
  // How `from` reaches the checkpoints (add_checkpoint_store).
  Route checkpoint_route(NodeId from);
  void on_runtime_event(NodeId node, const runtime::RuntimeEvent& event);
  void schedule_faults();
  void apply(const Fault& fault);
  // Aimed faults (sim/world_aims.cpp): the deadlines the world tracks for them, and their firing.
  void track_deadlines(NodeId node, const runtime::RuntimeEvent& event);
  void aim(const Fault& fault, NodeId node, const runtime::RuntimeEvent& event);
  struct Departure {
    std::int64_t leaves_ns;
    std::optional<std::int64_t> arrives_ns;
  };
  void fire_aimed(const Fault& fault, NodeId node, const runtime::LeaseKey& key,
                  runtime::EventKind event, std::optional<Departure> departure);
  std::optional<std::int64_t> deadline_ns(Aim aim, NodeId node, const runtime::LeaseKey& key,
                                          runtime::EventKind event,
                                          const std::optional<Departure>& departure,
                                          std::string& missed) const;
  void apply_aimed(const Fault& fault, std::size_t aim);
  std::int64_t believed_until_ns(std::int64_t sent_monotonic_ns) const;
  // Records what the ledger's entry `effect` did (kFaultEnded), once.
  void close_effect(std::size_t effect);
  void heal();
  // The key's row is at the last token and holds no live lease: no take can ever be granted.
  bool epochs_spent(const runtime::LeaseKey& key);
  // The passes begun (kTreeStarted) and not ended, by node and tree: a crash ends its node's.
  std::set<std::pair<NodeId, NameKey>> open_passes_;
  bool all_trees_completed();
  // Whether the tree of `key` has ended (see all_trees_completed); `root`: a submitted tree.
  bool tree_ended(const runtime::LeaseKey& key, bool root);
  // What a run that stopped short was stuck on (RunSummary::stuck), and the detail's words.
  std::vector<std::string> deadlock_terms() const;
  std::string tree_state(const runtime::LeaseKey& key);
  void describe_unfinished_trees(RunSummary& summary);
  // Records a kCancelRequest event for `tree` at the client (the world node).
  void record_cancel_request(const runtime::LeaseKey& tree, std::string what);
  NodeId node_named(const std::string& name) const;

  WorldOptions options_;
  // Before the scheduler and the network, which report to it until they are gone.
  FaultLedger ledger_;
  std::unique_ptr<Scheduler> scheduler_;
  // Every name this world records, interned (sim/name.h): the events of one tree or holder share
  // one copy of its name.
  NameTable interned_;
  // Per node, the names of its last runtime event, field by field (see on_runtime_event).
  struct RecentRuntimeNames {
    RecentName holder, tenant_id, lease_execution_id, scope_key, step, detail;
  };
  std::vector<RecentRuntimeNames> recent_names_;
  History history_;
  std::unique_ptr<Network> network_;
  std::vector<std::string> names_;
  std::vector<NodeKind> kinds_;
  std::deque<NodeClock> clocks_;
  std::deque<SimEnv> envs_;
  std::deque<std::unique_ptr<NodeObserver>> observers_;
  NodeId store_node_ = kWorldNode;
  NodeId checkpoint_node_ = kWorldNode;  // kWorldNode: the checkpoints are at store_node_
  std::unique_ptr<RestartableLeaseStore> leases_;
  std::unique_ptr<runtime::MemoryCheckpointStore> checkpoints_;
  runtime::MemoryPlacementQueue queue_;
  std::map<std::string, SinkNode> sinks_;
  runtime::WorkflowRegistry workflows_;
  std::vector<runtime::LeaseKey> submitted_;
  // Every tree the placement queue placed (roots and AnyInstance children) and every placement it
  // finished, from its own records of the calls it handled (record_store_call): what the liveness
  // watcher judges, without asking the runtime's queue which placements are pending.
  std::set<runtime::LeaseKey> placed_;
  std::set<runtime::LeaseKey> finished_;
  std::vector<Submission> submissions_;
  std::map<NodeId, std::unique_ptr<Incarnation>> incarnations_;
  std::vector<std::unique_ptr<Incarnation>> crashed_;  // kept until the world ends: fibers unwind
  // The cancel clients' store proxies, kept until the world ends: a request a client left in
  // flight (timed out, then sent again; duplicated) is still handled at the store after the client
  // is done, and its handler reads the proxy that sent it (its route and store name).
  std::vector<std::unique_ptr<RemoteCheckpointStore>> cancel_clients_;
  std::map<NodeId, int> incarnation_count_;
  std::map<NodeId, std::int64_t> start_ns_;
  FaultPlan plan_;
  // Triggers waiting for their event: (node, event kind) -> faults with counters.
  struct Armed {
    Fault fault;
    int seen = 0;
  };
  std::vector<Armed> armed_;
  // The pauses (stall, stop, migrate) holding each node, by their ledger entries: the node runs
  // again when the last of them ends, as the network holds its sends until the latest end. A crash
  // ends them all (its restarted process is not paused); the heal, every node's.
  std::map<NodeId, std::set<std::size_t>> pauses_;
  // Tracked only when the plan aims a fault at a deadline. Per (instance, lease key): the
  // monotonic time its last take or renewal left, and until when its grants let it believe the
  // lease (its own clock; -1: none).
  struct HolderTerm {
    std::int64_t sent_monotonic_ns = -1;
    std::int64_t believed_until_ns = -1;
  };
  bool aims_deadlines_ = false;
  std::map<std::pair<NodeId, runtime::LeaseKey>, HolderTerm> holder_terms_;
  std::map<runtime::LeaseKey, std::int64_t> store_expiry_ns_;  // true time, per lease key
  std::vector<FaultAim> aims_;
  // Steps waiting in await_moment. Shared with the timeout's timer, which may fire after the
  // moment came and the wait ended.
  struct MomentWatch {
    NodeId node;
    runtime::EventKind kind;
    runtime::LeaseKey lease;
    Waiter waiter{"a protocol moment"};
    bool came = false;
    bool over = false;
  };
  std::vector<std::shared_ptr<MomentWatch>> moment_watches_;
  bool quiet_ = false;
  Stage* stage_ = nullptr;
  std::optional<Rng> choices_;  // made at the first choose() without a chooser
};

}  // namespace fencesim::sim
