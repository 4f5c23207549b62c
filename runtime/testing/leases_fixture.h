#pragma once
// ADR-0023's leases fixture: a lease store, checkpoints, a placement queue and a sink on a manual
// clock, and instances that a test can stall and resume around the lease contract and their lease
// timers. Also the unit runner's fence option: run a step body under a held lease.
#include <deque>
#include <memory>

#include "runtime/checkpoint_store.h"
#include "runtime/execution_context.h"
#include "runtime/instance.h"
#include "runtime/memory_lease_repository.h"
#include "runtime/placement_queue.h"
#include "runtime/sink.h"
#include "runtime/testing/manual_env.h"
#include "runtime/testing/recording_observer.h"

namespace fencesim::runtime::testing {

class LeasesFixture {
 public:
  explicit LeasesFixture(LeasePolicy policy = {});
  ~LeasesFixture();

  // A new instance with its own process (ManualEnv). Not started. It reaches the lease store
  // through `leases_route` if given (a wrapper that drops or delays calls), else `leases`.
  Instance& add_instance(const std::string& holder,
                         ExecutionLeaseRepository* leases_route = nullptr);
  ManualEnv& env_of(const std::string& holder);
  void start_all();

  // Runs `body` as a step under a freshly taken lease of `key` (the fence option of a unit runner),
  // returning what it threw. The frame ends when the body returns.
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
  std::deque<std::unique_ptr<ManualEnv>> envs_;
  std::deque<std::unique_ptr<Instance>> instances_;
};

}  // namespace fencesim::runtime::testing
