#include "runtime/instance.h"

#include <fmt/format.h>

#include "runtime/scope_key.h"

namespace fencesim::runtime {

Instance::Instance(Env& env, ExecutionLeaseRepository& leases, CheckpointStore& checkpoints,
                   PlacementQueue& queue, const WorkflowRegistry& workflows, Observer& observer,
                   InstanceOptions options)
    : services_{env, leases, checkpoints, queue, observer, workflows, std::move(options)} {}

void Instance::start() {
  services_.env.spawn("poll " + services_.options.holder, [this] { poll_loop(); });
}

void Instance::poll_loop() {
  while (!stopping_) {
    poll_once();
    // Jitter keeps instances that started together from polling in lockstep.
    const auto interval = static_cast<std::uint64_t>(services_.options.poll_interval_ns);
    const std::uint64_t jitter =
        interval == 0 ? 0 : services_.env.random_u64() % (interval / 4 + 1);
    services_.env.sleep(static_cast<Nanoseconds>(interval + jitter));
  }
}

void Instance::poll_once() {
  std::vector<Placement> pending;
  try {
    pending = services_.queue.pending();
  } catch (const StoreUnavailableError&) {
    return;
  }
  for (const Placement& placement : pending) {
    if (stopping_) return;
    if (runners_.contains(placement.key)) continue;
    std::shared_ptr<HeldLease> lease;
    try {
      lease = HeldLease::take(services_.lease_services(), placement.key);
    } catch (const StoreUnavailableError&) {
      continue;
    } catch (const TokenOverflowError&) {
      // The key's epochs are spent (2^53-1 takes): no token can ever be granted for it, by any
      // instance. Skipped like a take that a live lease refused: escaping here, the error would
      // end the poll fiber and leave every other tree unpolled by this instance for good.
      continue;
    }
    if (!lease) continue;
    lease->start_timers();
    auto runner = std::make_shared<TreeRunner>(services_, placement, lease);
    runners_.emplace(placement.key, runner);
    services_.env.spawn("tree " + lease->scope_key(), [this, runner] {
      runner->run();
      runners_.erase(runner->key());
    });
  }
}

std::exception_ptr Instance::withdraw(const LeaseKey& tree, const std::string& step_path,
                                     const StepBody& body) {
  std::shared_ptr<Frame> frame;
  if (auto it = runners_.find(tree); it != runners_.end()) {
    frame = it->second->running_step_frame(step_path);
  }
  std::exception_ptr failure;
  // No blocking call inside a catch block: the exception state is per thread, not per fiber.
  try {
    if (!frame) frame = rebuilt_frame(tree, step_path);
    const bool fenced = frame->kind == FrameKind::kStep;
    services_.observer.on_event(RuntimeEvent{
        EventKind::kWithdrawal, services_.options.holder, tree, make_scope_key(tree),
        fenced ? frame->lease->token() : kTokenNone, frame->path, fenced ? "fenced" : "unfenced",
        0});
    ExecutionContext context(frame, services_.env, fenced ? frame->lease->signal() : AbortSignal{});
    body(context);
  } catch (const std::exception&) {
    failure = std::current_exception();
  }
  return end_withdrawal(tree, step_path, frame, failure);
}

std::shared_ptr<Frame> Instance::rebuilt_frame(const LeaseKey& tree, const std::string& step_path) {
  // Only a tree known to have ended may be withdrawn from without a fence: the stores say so. A
  // store that cannot be read does not say so, and a tree that is live (on this instance
  // between steps, in a checkpoint, in a remote-children wait, or on another instance) has its
  // step's fence only inside that step's pass: the withdrawal is refused rather than run
  // unfenced beside a live holder (neither routed nor deferred: the caller learns at once, and
  // may try again inside the step, or after the tree ended).
  //
  // A tree ends by its completion, or, cancelled (#360), by its cancelled pass's finish: the pass
  // that ended it finished its placement (TreeRunner::end_cancelled). A recorded cancel alone is
  // not the end: its holder learns of it only at its next check, and its step may still run under
  // the lease. A tree's completion and its cancel exclude each other at the store, so a finished
  // placement of a tree whose cancel was recorded is the cancelled pass's finish (read after the
  // cancel: both only ever become true).
  bool ended = false;
  std::string why = "the tree is live";
  const char* unknown = "the checkpoint store cannot say whether the tree ended";
  try {
    const Checkpoint checkpoint = services_.checkpoints.load(tree);
    ended = checkpoint.tree_completed;
    if (!ended && checkpoint.cancelled) {
      unknown = "the placement queue cannot say whether the cancelled tree's pass ended it";
      const std::optional<Placement> placement = services_.queue.find(tree);
      ended = placement && placement->finished;
      why = "the tree is live (its cancel was recorded, its pass has not ended it yet)";
    }
  } catch (const StoreUnavailableError&) {
    why = unknown;
  }
  if (!ended) {
    services_.observer.on_event(RuntimeEvent{EventKind::kWithdrawalRefused,
                                             services_.options.holder, tree, make_scope_key(tree),
                                             kTokenNone, step_path, why, 0});
    throw WithdrawalRefusedError(fmt::format(
        "withdrawal refused for step '{}' of {}: {}, and step '{}' does not run on {}", step_path,
        to_string(tree), why, step_path, services_.options.holder));
  }
  // Rebuilt from the checkpoint: the tree's facts, no held lease, so no fence.
  return std::make_shared<Frame>(
      Frame{FrameKind::kRebuilt, tree, step_path, nullptr, false, nullptr});
}

std::exception_ptr Instance::end_withdrawal(const LeaseKey& tree, const std::string& step_path,
                                            const std::shared_ptr<Frame>& frame,
                                            const std::exception_ptr& failure) {
  const bool fenced = frame && frame->kind == FrameKind::kStep;
  RuntimeEvent event{EventKind::kWithdrawalEnded, services_.options.holder, tree,
                     make_scope_key(tree), fenced ? frame->lease->token() : kTokenNone, step_path,
                     "ok", 0};
  std::exception_ptr ended_with = failure;
  if (!ended_with && fenced && frame->lease->state() != LeaseState::kReleased &&
      !frame->lease->held_now()) {
    // As a step's body: one that returned after its lease was lost (its own expiry included, even
    // if nothing noticed it yet) did not succeed. A lease given back (the pass ended or yielded)
    // is not a loss.
    ended_with = frame->lease->lost_error();
  }
  if (!ended_with) {
    services_.observer.on_event(event);
    return nullptr;
  }
  // The same decision as a step's (red team re-read 2026-12-04, finding 3): an expiry nothing
  // noticed yet is noticed first, a refusal that landed after the abort is weighed too and comes
  // first (it stops the holder of its token), then a lost lease (a cancel does not hide it), then
  // the signal's reason, then the error itself; reported, never escaping raw.
  const FailureDecision decision = fenced ? decide_under_lease(ended_with, *frame->lease)
                                          : decide_failure(ended_with, nullptr);
  if (fenced && decision.stop_token && decision.stop_key == frame->lease->key() &&
      *decision.stop_token == frame->lease->token()) {
    frame->lease->lose("fenced", decision.error);
  }
  // Reported by withdrawal-ended (detail = the decided code), not by error-classified: that one
  // is a pass's classification, and a withdrawal is not the pass.
  event.detail = decision.code;
  services_.observer.on_event(event);
  return decision.error;
}

}  // namespace fencesim::runtime
