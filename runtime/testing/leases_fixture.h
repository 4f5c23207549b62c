#pragma once
// ADR-0023's leases fixture: a lease store, checkpoints, a placement queue and a sink on a manual
// clock, and instances that a test can stall and resume around the lease contract and their lease
// timers. Also the unit runner's fence option: run a step body under a held lease, the runtime's
// own (renewal timer, expiry watchdog, cancel checks, release), so that a unit test of a step sees
// the fence an instance would give it.
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "runtime/checkpoint_store.h"
#include "runtime/execution_context.h"
#include "runtime/instance.h"
#include "runtime/memory_lease_repository.h"
#include "runtime/placement_queue.h"
#include "runtime/sink.h"
#include "runtime/testing/manual_env.h"
#include "runtime/testing/recording_observer.h"

namespace fencesim::runtime::testing {

// Named stall points inside the lease calls of one holder, on its route to the lease store (issue
// 29 item 8). A call that reaches a stalled point waits there until the point is resumed, as a
// request held up on the network or a holder frozen in the middle of a call would:
//   "<call>:sent"     the request left the holder and has not reached the store yet;
//   "<call>:replied"  the store handled it and its reply has not reached the holder yet;
// where <call> is take, renew, release or read. A renewal stalled at "renew:sent" is the moment
// of ADR-0023's stale holder: its renewal left, the store has not seen it, its belief runs on.
class StallPoints final : public ExecutionLeaseRepository {
 public:
  // `env` is the holder's process: its calls wait on a notification of it.
  StallPoints(Env& env, ExecutionLeaseRepository& store);

  // From now on, calls that reach `point` wait there. Throws std::invalid_argument for a name
  // that is not one of the points above (a misspelt point would stall nothing).
  void stall(const std::string& point);
  // Lets every call waiting at `point` go on; later calls pass it.
  void resume(const std::string& point);
  // How many calls wait at `point` now.
  int waiting(const std::string& point) const;

  TakeResult take(const LeaseKey& key, const HolderId& holder, Nanoseconds ttl_ns) override;
  RenewResult renew(const LeaseKey& key, const HolderId& holder, Token token,
                    Nanoseconds ttl_ns) override;
  ReleaseStatus release(const LeaseKey& key, const HolderId& holder, Token token) override;
  std::optional<Lease> read(const LeaseKey& key) override;

 private:
  void pass(const std::string& point);

  ExecutionLeaseRepository& store_;
  std::set<std::string> stalled_;
  std::map<std::string, int> waiting_;
  std::unique_ptr<Notification> changed_;
};

class LeasesFixture {
 public:
  explicit LeasesFixture(LeasePolicy policy = {});
  ~LeasesFixture();

  // A new instance with its own process (ManualEnv). Not started. It reaches the lease store
  // through its stall points (lease_calls(holder)), and through `leases_route` if given (a wrapper
  // that drops or delays calls), else straight to `leases`.
  Instance& add_instance(const std::string& holder,
                         ExecutionLeaseRepository* leases_route = nullptr);
  // The process of an instance or of a unit runner's holder.
  ManualEnv& env_of(const std::string& holder);
  // The stall points of the lease calls of an instance or of a unit runner's holder (a holder not
  // known yet is made now as a unit runner's, reaching `leases`: add_instance with its name then
  // fails).
  StallPoints& lease_calls(const std::string& holder);
  void start_all();

  // Runs `body` as a step of `key` under a freshly taken lease (the fence option of a unit runner),
  // as an instance runs a step: the lease renews on its timer and expires locally when its belief
  // runs out (the expiry watchdog aborts the step's signal), the tree's cancel is read at the start
  // and by the watcher, and the lease is released when the step ends. `holder` is a process of its
  // own (env_of, lease_calls), made at its first run. Returns what the step ends with, decided as
  // the runtime decides a step's failure: null on success; the loss when the body returned after
  // its lease was lost; a refusal found anywhere in what it threw (its holder stopped).
  // REQUIRES: the key's lease is free. A second run on the same key takes the next token.
  std::exception_ptr run_step(const LeaseKey& key, const StepBody& body,
                              const std::string& holder = "unit-runner");

  ManualTime time;
  ManualEnv store_env{time, 99};
  RecordingObserver events;
  MemoryLeaseRepository leases{store_env, events};
  MemoryCheckpointStore checkpoints{leases, events};
  MemoryPlacementQueue queue;
  MemorySink sink{"sink", events};
  WorkflowRegistry workflows;
  LeasePolicy policy;

 private:
  struct Process {
    std::string holder;
    std::unique_ptr<ManualEnv> env;
    std::unique_ptr<StallPoints> lease_calls;
  };
  Process& process(const std::string& holder, ExecutionLeaseRepository& route);
  Process* find(const std::string& holder);

  std::deque<Process> processes_;
  std::deque<std::unique_ptr<Instance>> instances_;
};

}  // namespace fencesim::runtime::testing
