#pragma once
// One pass of one holder over one tree (a root, or an AnyInstance child with its own lease):
// resumes from the tree's checkpoint, runs the steps not yet committed, checkpoints each under its
// token, and ends by committing the tree or by giving up the pass (lease lost, fenced, failed).
#include <memory>
#include <vector>

#include "runtime/checkpoint_store.h"
#include "runtime/errors.h"
#include "runtime/execution_context.h"
#include "runtime/held_lease.h"
#include "runtime/instance_options.h"
#include "runtime/placement_queue.h"
#include "runtime/workflow.h"

namespace fencesim::runtime {

struct InstanceServices {
  Env& env;
  ExecutionLeaseRepository& leases;
  CheckpointStore& checkpoints;
  PlacementQueue& queue;
  Observer& observer;
  const WorkflowRegistry& workflows;
  InstanceOptions options;

  LeaseServices lease_services() {
    return LeaseServices{env, leases, observer, options.lease, options.holder};
  }
};

// kCancelled: the tree's cancel was recorded; the pass ended the tree (its placement is finished,
// it never completes and is never run again).
enum class PassOutcome { kCompleted, kAbandoned, kCancelled };

class TreeRunner {
 public:
  TreeRunner(InstanceServices& services, Placement placement, std::shared_ptr<HeldLease> lease);

  // Runs the pass. Never throws a std::exception: a failure ends the pass, classified.
  PassOutcome run();
  // The frame of the step `path` while it runs in this pass (for a withdrawal inside the pass),
  // else null.
  std::shared_ptr<Frame> running_step_frame(const std::string& path) const;
  const LeaseKey& key() const { return placement_.key; }

 private:
  void run_level(const Workflow& workflow, const std::shared_ptr<Frame>& level);
  void run_step(const StepItem& step, const std::shared_ptr<Frame>& level);
  void run_group(const GroupItem& group, const std::shared_ptr<Frame>& level);
  struct BranchJoin {
    std::size_t remaining;
    std::vector<std::exception_ptr> errors;
  };
  // ParentInstance children run as concurrent branches (fibers) under the root's lease.
  std::shared_ptr<BranchJoin> start_branches(const std::vector<const ChildItem*>& branches,
                                             const std::string& group_path,
                                             const std::shared_ptr<Frame>& level);
  // Waits for every branch; their failures (and `other_failure`) end the group, several at once
  // as an AggregateError.
  void join_branches(BranchJoin& join, std::exception_ptr other_failure);
  void await_remote_children(const std::vector<LeaseKey>& children);
  // Takes the tree's lease back after a yield. False if another holder has it.
  bool retake_after_yield();
  bool child_completed(const LeaseKey& child);
  // Commits a step's checkpoint under the lease the step ran under (its frame's, not the pass's
  // current one: a retake after a yield replaces that).
  void commit_step(const std::string& path, HeldLease& lease);
  // The step start's cancel check (#360): refuses (throws ExecutionCancelledError) once the pass
  // knows of the cancel, reading the store first.
  void refuse_if_cancelled();
  // Ends a cancelled tree: finishes its placement and gives the lease back.
  PassOutcome end_cancelled(const FailureDecision& decision);
  // The fenced error for a refusal by the checkpoint store that saw `observed`; stops the holder
  // of `lease`.
  ExecutionFencedError lease_fence_error(Token observed, HeldLease& lease);
  // An event of the pass under its current lease, or (emit_as) under a step's.
  void emit(EventKind kind, const std::string& step = {}, std::string detail = {},
            std::int64_t value = 0);
  void emit_as(const HeldLease& lease, EventKind kind, const std::string& step = {},
               std::string detail = {}, std::int64_t value = 0);
  std::shared_ptr<Frame> child_level(const std::shared_ptr<Frame>& level, const std::string& path);

  InstanceServices& services_;
  Placement placement_;
  std::shared_ptr<HeldLease> lease_;  // replaced by a new take after a yield
  Checkpoint checkpoint_;
  int running_steps_ = 0;
  // Lanes of the pass (the pass itself and each branch) that run or may start steps; a lane in a
  // remote-children wait or joining its branches is not busy.
  int busy_lanes_ = 1;
  bool yielded_ = false;
  bool retaking_ = false;
  std::unique_ptr<Notification> changed_;  // a step ended, a branch ended, or a yield ended
  std::shared_ptr<TreeCancel> cancel_;     // what the pass knows of its tree's cancel
  std::vector<std::shared_ptr<Frame>> running_frames_;
};

// The path of `name` inside the level at path `level` ("" for the tree's root level): the names
// encodeURIComponent-encoded and joined by '/'. Workloads address a step with it.
std::string join_path(const std::string& level, const std::string& name);

// The decision about a failure made under `lease` (a step's, a pass's, or a withdrawal's in a
// step's frame), with the pass's rules: an expiry nothing noticed yet is noticed first, a refusal
// that landed after the abort is weighed with the failure, and a cancel does not hide a lost
// lease (a lease given back is not lost).
FailureDecision decide_under_lease(const std::exception_ptr& failure, HeldLease& lease);


}  // namespace fencesim::runtime
