#include "runtime/tree_runner.h"

#include <fmt/format.h>

#include <algorithm>

#include "runtime/check.h"
#include "runtime/errors.h"
#include "runtime/lease_repository.h"
#include "runtime/scope_key.h"
#include "runtime/tree_cancel.h"

namespace fencesim::runtime {

std::string join_path(const std::string& level, const std::string& name) {
  // Each name is encoded (encodeURIComponent keeps '/', ':' and '%' out of it), so a name holding
  // '/' cannot pose as two levels and no two different name lists give the same path.
  const std::string part = encode_uri_component(name);
  return level.empty() ? part : level + "/" + part;
}

namespace {

// The failure a decision weighs. A refusal can land after the abort (a fenced write's call ended
// at the lease's local expiry, its request left in flight) or after a yield (a write left in
// flight when the lease was given back, refused once another holder wrote): HeldLease::lose keeps
// it as the error that ended the lease, but neither the signal's reason (the first loss wins) nor
// a failure made before it landed carries it. It is a second failure of the step or pass, and the
// decision sees both, as an AggregateError, so that the refusal is found (anywhere in an
// aggregate, ADR-0023) before the signal's reason wherever the runtime decides, and its holder is
// stopped.
std::exception_ptr with_late_refusal(const std::exception_ptr& failure, HeldLease& lease) {
  if (lease.state() == LeaseState::kHeld || lease.lost_reason() != "fenced") return failure;
  const std::exception_ptr refusal = lease.lost_error();
  if (refusal == failure || refusal == lease.signal().reason()) return failure;
  return std::make_exception_ptr(AggregateError({failure, refusal}));
}

// The decision about a failure of a step or a pass under `lease`. A cancel does not hide a lost
// lease: a holder whose lease was lost (it may be stale) ends with the loss, as with any other
// failure, and whoever holds the tree next finds the cancel at its pass's start. A lease given
// back (a yield) is not a loss: a cancel seen during the remote-children wait ends the tree.
FailureDecision decide(const std::exception_ptr& failure, HeldLease& lease) {
  // A lease whose belief ran out before anything noticed it (its holder was frozen, and the
  // failure was the first thing to run at the resume) is lost now, before the decision: a stale
  // step ends execution.lease-lost, whatever it failed with (ADR-0023, Consequences).
  (void)lease.held_now();
  FailureDecision decision =
      decide_failure(with_late_refusal(failure, lease), lease.signal().reason());
  if (decision.kind == FailureDecision::Kind::Cancelled &&
      lease.state() != LeaseState::kReleased && !lease.held_now()) {
    decision = decide_failure(lease.lost_error(), nullptr);
  }
  return decision;
}

}  // namespace

FailureDecision decide_under_lease(const std::exception_ptr& failure, HeldLease& lease) {
  return decide(failure, lease);
}

TreeRunner::TreeRunner(InstanceServices& services, Placement placement,
                       std::shared_ptr<HeldLease> lease)
    : services_(services),
      placement_(std::move(placement)),
      lease_(std::move(lease)),
      changed_(services.env.make_notification()),
      cancel_(std::make_shared<TreeCancel>(services.checkpoints, placement_.key)) {
  check(lease_ != nullptr, "a pass starts with a held lease");
  cancel_->set_lease(lease_);
}

void TreeRunner::emit(EventKind kind, const std::string& step, std::string detail,
                      std::int64_t value) {
  emit_as(*lease_, kind, step, std::move(detail), value);
}

void TreeRunner::emit_as(const HeldLease& lease, EventKind kind, const std::string& step,
                         std::string detail, std::int64_t value) {
  services_.observer.on_event(RuntimeEvent{kind, services_.options.holder, placement_.key,
                                           lease.scope_key(), lease.token(), step,
                                           std::move(detail), value});
}

PassOutcome TreeRunner::run() {
  emit(EventKind::kTreeStarted, {}, placement_.workflow);
  std::exception_ptr failure;
  // No blocking call inside a catch block: the exception state is per thread, not per fiber.
  try {
    checkpoint_ = services_.checkpoints.load(placement_.key);
    // A cancelled tree runs no step: the pass ends it at once (a tree that completed was never
    // cancelled: the store refuses one after the other).
    cancel_->learn_from(checkpoint_, "pass-start");
    cancel_->throw_if_seen();
    if (!checkpoint_.tree_completed) {
      TreeCancel::start_watcher(cancel_);
      const Workflow& workflow = services_.workflows.get(placement_.workflow);
      auto root = std::make_shared<Frame>(
          Frame{FrameKind::kLevel, placement_.key, "", nullptr, false, nullptr});
      run_level(workflow, root);
      lease_->assert_held();
      emit(EventKind::kCheckpointSent, "<tree>");
      const CommitResult result =
          services_.checkpoints.commit_tree(placement_.key, lease_->token());
      if (result.status != CommitStatus::kCommitted) {
        emit(EventKind::kCheckpointRefused, "<tree>",
             result.status == CommitStatus::kCancelled ? "cancelled" : "",
             static_cast<std::int64_t>(result.current_epoch));
        if (result.status == CommitStatus::kCancelled) {
          cancel_->learn_from(Checkpoint{.cancelled = true}, "commit-tree");
          cancel_->throw_if_seen();
        }
        if (result.current_epoch > lease_->token()) {
          throw lease_fence_error(result.current_epoch, *lease_);
        }
        throw ExecutionLeaseLostError(placement_.key, lease_->token());
      }
      emit(EventKind::kCheckpointCommitted, "<tree>");
    }
    services_.queue.finish(placement_.key);
  } catch (const std::exception&) {
    failure = std::current_exception();
  }
  cancel_->end_pass();
  if (!failure) {
    emit(EventKind::kTreeCompleted);
    lease_->release();
    return PassOutcome::kCompleted;
  }
  const FailureDecision decision = decide(failure, *lease_);
  emit(EventKind::kErrorClassified, {}, decision.code);
  if (decision.kind == FailureDecision::Kind::Cancelled) return end_cancelled(decision);
  if (decision.stop_token && decision.stop_key == lease_->key() &&
      *decision.stop_token == lease_->token()) {
    lease_->lose("fenced", decision.error);
  }
  emit(EventKind::kTreeAbandoned, {}, decision.code);
  // A pass that failed while still holding its lease gives it back, so that the tree is tried
  // again (at least once) by whoever takes it next.
  lease_->release();
  return PassOutcome::kAbandoned;
}

PassOutcome TreeRunner::end_cancelled(const FailureDecision& decision) {
  // A cancel is final and durable at the store, so ending the tree needs no held lease: the
  // placement is finished (no instance takes it again) even by a holder whose lease ran out. If
  // the queue cannot be reached, the pass is abandoned instead: the next holder to take the tree
  // finds the cancel at its pass's start and ends it then.
  bool finished = true;
  try {
    services_.queue.finish(placement_.key);
  } catch (const StoreUnavailableError&) {
    finished = false;
  }
  emit(finished ? EventKind::kTreeCancelled : EventKind::kTreeAbandoned, {}, decision.code);
  lease_->release();
  return finished ? PassOutcome::kCancelled : PassOutcome::kAbandoned;
}

ExecutionFencedError TreeRunner::lease_fence_error(Token observed, HeldLease& lease) {
  // A reported epoch above 2^53-1 is no token (ADR-0023: safe integers), and the error's range
  // check would throw before the holder is stopped (issue 29 item 4): the store still refused, so
  // the holder is stopped with the fenced error, its observed token the largest safe token and
  // its cause naming what was reported (as ExecutionFence::fenced does).
  std::exception_ptr cause;
  if (observed > kTokenMax) {
    cause = std::make_exception_ptr(TokenOverflowError(fmt::format(
        "the checkpoint store reported epoch {}, above 2^53-1: no token", observed)));
    observed = kTokenMax;
  }
  ExecutionFencedError error(lease.key(), lease.token(), observed, lease.scope_key(),
                             std::move(cause));
  lease.lose("fenced", std::make_exception_ptr(error));
  return error;
}

void TreeRunner::run_level(const Workflow& workflow, const std::shared_ptr<Frame>& level) {
  for (const WorkflowItem& item : workflow.items) {
    if (const auto* step = std::get_if<StepItem>(&item)) {
      run_step(*step, level);
    } else {
      run_group(std::get<GroupItem>(item), level);
    }
  }
}

std::shared_ptr<Frame> TreeRunner::child_level(const std::shared_ptr<Frame>& level,
                                               const std::string& path) {
  return std::make_shared<Frame>(
      Frame{FrameKind::kLevel, placement_.key, path, nullptr, false, level});
}

void TreeRunner::run_step(const StepItem& step, const std::shared_ptr<Frame>& level) {
  const std::string path = join_path(level->path, step.name);
  if (checkpoint_.completed_steps.contains(path)) return;
  // While the lease is yielded for a remote-children wait, no step of the tree may start.
  while (yielded_) changed_->wait("the lease taken back after a yield");
  refuse_if_cancelled();
  lease_->assert_held();
  std::shared_ptr<HeldLease> lease = lease_;
  auto frame = std::make_shared<Frame>(
      Frame{FrameKind::kStep, placement_.key, path, lease, false, level, cancel_});
  ++running_steps_;
  running_frames_.push_back(frame);
  emit_as(*lease, EventKind::kStepStarted, path);
  std::exception_ptr failure;
  try {
    ExecutionContext context(frame, services_.env, lease->signal());
    step.body(context);
  } catch (const std::exception&) {
    failure = std::current_exception();
  }
  frame->ended = true;
  --running_steps_;
  std::erase(running_frames_, frame);
  changed_->notify_all();
  if (!failure && !lease->held_now()) {
    // The lease was lost before the step's outcome could commit: the step did not succeed, even if
    // its writes landed (ADR-0023, Consequences).
    failure = lease->lost_error();
  }
  if (!failure) {
    try {
      commit_step(path, *lease);
    } catch (const std::exception&) {
      failure = std::current_exception();
    }
  }
  if (!failure && !lease->held_now()) {
    // The checkpoint committed, but the lease expired locally while it was in flight: as with a
    // fenced write that settles after expiry, the step does not report success. Its commit
    // stands, so the next holder skips it.
    failure = lease->lost_error();
  }
  if (!failure) {
    emit_as(*lease, EventKind::kStepEnded, path, "ok");
    return;
  }
  const FailureDecision decision = decide(failure, *lease);
  if (decision.stop_token && decision.stop_key == lease->key() &&
      *decision.stop_token == lease->token()) {
    lease->lose("fenced", decision.error);
  }
  emit_as(*lease, EventKind::kStepEnded, path, decision.code);
  std::rethrow_exception(decision.error);
}

void TreeRunner::refuse_if_cancelled() {
  cancel_->throw_if_seen();
  // A store that cannot be reached cannot say that the tree was cancelled; the step starts, and
  // the watcher, its confirms and the tree's completion commit go on checking (refusing the step
  // would turn every store outage into a failed pass).
  try {
    cancel_->read("step-start");
  } catch (const StoreUnavailableError&) {
  }
  cancel_->throw_if_seen();
}

void TreeRunner::commit_step(const std::string& path, HeldLease& lease) {
  // The step's own lease, not the pass's current one: the fence is a fact of the step's frame. The
  // two are the same while the lane counters keep a yield from happening during the commit's round
  // trip; were one ever to, the commit must go out under the token the body ran under (and be
  // refused, its step ending lease-lost), not under the retaken one (red team re-read 2026-12-04,
  // finding 7).
  emit_as(lease, EventKind::kCheckpointSent, path);
  const CommitResult result =
      services_.checkpoints.commit_step(placement_.key, lease.token(), path);
  if (result.status == CommitStatus::kCommitted) {
    checkpoint_.completed_steps.insert(path);
    emit_as(lease, EventKind::kCheckpointCommitted, path);
    return;
  }
  emit_as(lease, EventKind::kCheckpointRefused, path, {},
          static_cast<std::int64_t>(result.current_epoch));
  if (result.current_epoch > lease.token()) throw lease_fence_error(result.current_epoch, lease);
  ExecutionLeaseLostError error(placement_.key, lease.token());
  lease.lose("checkpoint-refused", std::make_exception_ptr(error));
  throw error;
}

void TreeRunner::run_group(const GroupItem& group, const std::shared_ptr<Frame>& level) {
  const std::string group_path = join_path(level->path, group.name);
  std::vector<const ChildItem*> branches;
  std::vector<LeaseKey> remote;
  for (const ChildItem& child : group.children) {
    const std::string path = join_path(group_path, child.name);
    switch (child.placement) {
      case ChildPlacement::kThisWorkflow:
        run_level(services_.workflows.get(child.workflow), child_level(level, path));
        break;
      case ChildPlacement::kParentInstance:
        branches.push_back(&child);
        break;
      case ChildPlacement::kAnyInstance: {
        // The child's lease key is made of the parent's execution id and the child's path, so a
        // re-run of the parent places the same child (placing is idempotent).
        LeaseKey child_key = child_lease_key(placement_.key, path);
        services_.queue.place(child_key, child.workflow, placement_.key);
        emit(EventKind::kChildPlaced, path, make_scope_key(child_key));
        remote.push_back(std::move(child_key));
        break;
      }
    }
  }
  // The group's children run together: the branches go on while the root waits for its remote
  // children, which is exactly when the remote-children wait must not yield the lease.
  std::shared_ptr<BranchJoin> join = start_branches(branches, group_path, level);
  std::exception_ptr wait_failure;
  if (!remote.empty()) {
    try {
      await_remote_children(remote);
    } catch (const std::exception&) {
      wait_failure = std::current_exception();
    }
  }
  join_branches(*join, wait_failure);
}

std::shared_ptr<TreeRunner::BranchJoin> TreeRunner::start_branches(
    const std::vector<const ChildItem*>& branches, const std::string& group_path,
    const std::shared_ptr<Frame>& level) {
  auto join = std::make_shared<BranchJoin>(BranchJoin{branches.size(), {}});
  for (const ChildItem* child : branches) {
    const Workflow& workflow = services_.workflows.get(child->workflow);
    auto frame = child_level(level, join_path(group_path, child->name));
    ++busy_lanes_;  // counted before the fiber starts: a branch about to run steps is busy
    services_.env.spawn("branch " + frame->path, [this, join, &workflow, frame] {
      std::exception_ptr failure;
      try {
        run_level(workflow, frame);
      } catch (const std::exception&) {
        failure = std::current_exception();
      }
      if (failure) join->errors.push_back(failure);
      --busy_lanes_;
      --join->remaining;
      changed_->notify_all();
    });
  }
  return join;
}

void TreeRunner::join_branches(BranchJoin& join, std::exception_ptr other_failure) {
  --busy_lanes_;  // this lane only waits now
  while (join.remaining > 0) changed_->wait("branches to end");
  ++busy_lanes_;
  if (other_failure) join.errors.push_back(other_failure);
  if (join.errors.empty()) return;
  if (join.errors.size() == 1) std::rethrow_exception(join.errors.front());
  throw AggregateError(join.errors);
}

void TreeRunner::await_remote_children(const std::vector<LeaseKey>& children) {
  emit(EventKind::kRemoteWaitBegan, {}, {}, static_cast<std::int64_t>(children.size()));
  --busy_lanes_;
  for (;;) {
    // A lease lost while the wait held it (a sibling branch's step outlived it) ends the wait with
    // that loss, before any yield: "yielding" a lost lease would let the retake below start a
    // new token inside this pass, and the pass would then decide its branches' failures (made
    // under the old token) against the new lease, missing a refusal that stopped the old one.
    // Once a cancel was seen, the cancel ends the wait (below), also in a lane that finds the
    // yield taken back by another lane that saw it: that lease was released, not lost.
    if (!yielded_ && !cancel_->seen()) lease_->assert_held();
    // A cancel seen by the watcher (which goes on while the lease is yielded) ends the wait: the
    // tree will not use its children's results. The children are trees of their own and run on.
    if (cancel_->seen()) {
      // A yielded lease is taken back first (below): a recorded cancel is not the end of the
      // tree, and another instance may have taken the tree while the lease was free and be
      // running a step of it now. Ending the tree without the lease would finish its placement
      // beside that live step (a withdrawal elsewhere would then run unfenced); refused, the pass
      // is over, and the holder that took the tree learns of the cancel and ends it (red team
      // re-read 2026-12-04, finding 1).
      if (yielded_) break;
      cancel_->throw_if_seen();
    }
    // Yield only while no other step of the tree runs or is about to: a sibling ParentInstance
    // branch's steps must run and checkpoint under a held lease.
    if (!yielded_ && services_.options.yield_during_remote_wait && running_steps_ == 0 &&
        busy_lanes_ == 0) {
      yielded_ = true;
      lease_->release();
    }
    bool all_completed = true;
    for (const LeaseKey& child : children) {
      if (!child_completed(child)) {
        all_completed = false;
        break;
      }
    }
    if (all_completed) break;
    services_.env.sleep(services_.options.poll_interval_ns);
  }
  ++busy_lanes_;
  // Whoever finishes waiting first takes the lease back; a second waiter waits for that take.
  while (yielded_) {
    if (retaking_) {
      changed_->wait("another lane's retake of the lease");
      continue;
    }
    retaking_ = true;
    const Token yielded_token = lease_->token();
    bool retaken = false;
    std::exception_ptr failure;
    try {
      retaken = retake_after_yield();
    } catch (const std::exception&) {
      // A take that throws (the key's epochs are spent: TokenOverflowError, "an error, never a
      // wrap") ends the pass with that error, but only after the yield is over for every lane: a
      // lane waiting for this retake, and every step start waiting for the lease, would otherwise
      // wait forever, and the tree's pass would never end (red team re-read 2026-12-04, finding 5).
      failure = std::current_exception();
    }
    retaking_ = false;
    yielded_ = false;
    changed_->notify_all();
    if (failure) std::rethrow_exception(failure);
    if (!retaken) {
      // Another instance took the tree while its lease was yielded: this pass is over.
      throw ExecutionLeaseLostError(placement_.key, yielded_token);
    }
  }
  // A cancel seen during the wait ends it here, under the lease taken back (by this lane or by
  // another): the pass holds the tree again, so ending it cannot finish the placement beside
  // another holder's step.
  cancel_->throw_if_seen();
  lease_->assert_held();
  emit(EventKind::kRemoteWaitEnded);
}

bool TreeRunner::child_completed(const LeaseKey& child) {
  try {
    return services_.checkpoints.load(child).tree_completed;
  } catch (const StoreUnavailableError&) {
    return false;  // Unknown yet: read again at the next poll.
  }
}

bool TreeRunner::retake_after_yield() {
  // A take refused by a live lease is a hand-over only when that lease is not the one this pass
  // gave back: its release may have been lost (the store then keeps it live until its expiry), or
  // be still in flight when another lane's take overtakes it. Either way nobody took the tree, and
  // ending the pass lease-lost would hand the tree to a new pass after up to a ttl of waiting (red
  // team re-read 2026-12-04, finding 4). So a refused take sends the yielded token's release again
  // and takes again; the tree was taken by another (or by a later grant this pass never learnt
  // of) only when a take is refused right after the store refused that release: the yielded lease
  // is then no longer live there, and a lease that is refuses the take.
  const Token yielded = lease_->token();
  bool release_refused = false;
  std::shared_ptr<HeldLease> lease;
  for (;;) {
    bool reached = true;
    try {
      lease = HeldLease::take(services_.lease_services(), placement_.key);
      if (!lease) {
        if (release_refused) return false;
        release_refused = services_.leases.release(placement_.key, services_.options.holder,
                                                   yielded) == ReleaseStatus::kRefused;
        continue;
      }
    } catch (const StoreUnavailableError&) {
      reached = false;
    }
    if (reached) break;
    services_.env.sleep(services_.options.poll_interval_ns);
  }
  if (!lease) return false;
  lease_ = std::move(lease);
  lease_->start_timers();
  cancel_->set_lease(lease_);
  // Another holder may have advanced the tree while the lease was free; steps it committed are
  // skipped. If the store cannot be read now, the old checkpoint is still safe: a step run twice
  // is at least once, and its writes deduplicate.
  try {
    checkpoint_ = services_.checkpoints.load(placement_.key);
  } catch (const StoreUnavailableError&) {
  }
  return true;
}

std::shared_ptr<Frame> TreeRunner::running_step_frame(const std::string& path) const {
  for (const std::shared_ptr<Frame>& frame : running_frames_) {
    if (frame->path == path) return frame;
  }
  return nullptr;
}

}  // namespace fencesim::runtime
