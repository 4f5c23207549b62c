#pragma once
// An instance: a worker process of the workflow runtime. It polls the placement queue, takes the
// lease of every placed tree it can, renews its leases on timers, expires them locally, and runs a
// pass over each tree it holds. Everything it does goes through its Env and the stores handed in.
#include <map>
#include <memory>

#include "runtime/tree_runner.h"

namespace fencesim::runtime {

class Instance {
 public:
  Instance(Env& env, ExecutionLeaseRepository& leases, CheckpointStore& checkpoints,
           PlacementQueue& queue, const WorkflowRegistry& workflows, Observer& observer,
           InstanceOptions options);
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  // Starts the poll loop (a fiber of this instance's process).
  void start();
  // The poll loop ends at its next wake; running passes go on to their end.
  void stop() { stopping_ = true; }
  // One poll: takes and starts every placed, unfinished tree whose lease is free.
  void poll_once();
  // A withdrawal for the step `step_path` of `tree` (a path as join_path builds it). While that
  // step runs here, the body runs in the step's own frame (with its fence and signal). Otherwise
  // only a tree known to have ended is withdrawn from, in a frame rebuilt from the checkpoint,
  // without a fence (ADR-0023, Consequences): its checkpoint says it completed, or says it was
  // cancelled and the placement queue says its cancelled pass finished it. A tree not known to
  // have ended (live
  // anywhere, or its checkpoint store unreachable) refuses the withdrawal with
  // WithdrawalRefusedError. Never throws a std::exception: what the body threw (or the refusal)
  // is decided like a step's failure (decide_failure; a fenced error stops its holder), reported
  // as events (withdrawal-ended, detail = the decided code) and returned; null on success.
  std::exception_ptr withdraw(const LeaseKey& tree, const std::string& step_path,
                              const StepBody& body);

  const HolderId& holder() const { return services_.options.holder; }
  std::size_t running_trees() const { return runners_.size(); }

 private:
  void poll_loop();
  // The frame of a withdrawal from a tree that ended. Throws WithdrawalRefusedError otherwise.
  std::shared_ptr<Frame> rebuilt_frame(const LeaseKey& tree, const std::string& step_path);
  std::exception_ptr end_withdrawal(const LeaseKey& tree, const std::string& step_path,
                                    const std::shared_ptr<Frame>& frame,
                                    const std::exception_ptr& failure);

  InstanceServices services_;
  bool stopping_ = false;
  std::map<LeaseKey, std::shared_ptr<TreeRunner>> runners_;
};

}  // namespace fencesim::runtime
