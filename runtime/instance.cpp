#include "runtime/instance.h"

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

void Instance::withdraw(const LeaseKey& tree, const std::string& step_path,
                        const StepBody& body) {
  std::shared_ptr<Frame> frame;
  AbortSignal signal;
  if (auto it = runners_.find(tree); it != runners_.end()) {
    frame = it->second->running_step_frame(step_path);
    if (frame) signal = frame->lease->signal();
  }
  const bool fenced = frame != nullptr;
  if (!fenced) {
    // Rebuilt from the checkpoint: the tree's facts, no held lease, so no fence.
    frame = std::make_shared<Frame>(
        Frame{FrameKind::kRebuilt, tree, step_path, nullptr, false, nullptr});
  }
  services_.observer.on_event(RuntimeEvent{EventKind::kWithdrawal, services_.options.holder, tree,
                                           make_scope_key(tree), fenced ? frame->lease->token() : 0,
                                           frame->path, fenced ? "fenced" : "unfenced", 0});
  ExecutionContext context(frame, services_.env, signal);
  body(context);
}

}  // namespace fencesim::runtime
