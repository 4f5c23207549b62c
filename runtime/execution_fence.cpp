#include "runtime/execution_fence.h"

#include <fmt/format.h>

#include "runtime/scope_key.h"

namespace fencesim::runtime {

HeldLease& ExecutionFence::live() const {
  const Frame& frame = *frame_;
  if (frame.kind != FrameKind::kStep) {
    throw ExecutionContextUnavailableError(
        fmt::format("no fence: frame '{}' of {} is not a step's frame (an ancestor's, or one "
                    "without a held lease)",
                    frame.path, to_string(frame.tree_key)));
  }
  if (frame.ended) {
    throw ExecutionContextUnavailableError(
        fmt::format("no fence: step '{}' of {} has ended; a fence kept past its step refuses",
                    frame.path, to_string(frame.tree_key)));
  }
  if (!frame.lease) {
    throw ExecutionContextUnavailableError(
        fmt::format("no fence: step '{}' runs without a held lease", frame.path));
  }
  return *frame.lease;
}

const std::string& ExecutionFence::scope_key() const {
  return live().scope_key();
}
const std::string& ExecutionFence::tenant_id() const {
  return live().key().tenant_id;
}
const std::string& ExecutionFence::lease_execution_id() const {
  return live().key().lease_execution_id;
}
Token ExecutionFence::token() const {
  return live().token();
}
Nanoseconds ExecutionFence::confirmed_until_ns() const {
  return live().confirmed_until_ns();
}

void ExecutionFence::assert_held() const {
  live().assert_held();
}

Nanoseconds ExecutionFence::confirm_now() const {
  HeldLease& lease = live();
  lease.signal().throw_if_aborted();
  lease.assert_held();
  lease.services().observer.on_event(RuntimeEvent{EventKind::kConfirmSent,
                                                  lease.holder(),
                                                  lease.key(),
                                                  lease.scope_key(),
                                                  lease.token(),
                                                  frame_->path,
                                                  {},
                                                  0});
  // A renewal not granted (refused, store unreachable, dropped, timed out) throws lease-lost even
  // while the old belief has not run out: the caller is about to make a call that cannot check
  // tokens, and an old belief is exactly what a stale holder has.
  if (!lease.renew_once()) {
    lease.assert_held();
    throw ExecutionLeaseLostError(
        lease.key(), lease.token(),
        std::make_exception_ptr(StoreUnavailableError(
            "confirmNow: the strict renewal was not granted (the lease store was not reached)")));
  }
  lease.assert_held();
  lease.signal().throw_if_aborted();
  return lease.confirmed_until_ns();
}

ExecutionFencedError ExecutionFence::fenced(Token observed_token) const {
  HeldLease& lease = live();
  ExecutionFencedError error(lease.key(), lease.token(), observed_token, lease.scope_key());
  lease.lose("fenced", std::make_exception_ptr(error));
  return error;
}

std::string ExecutionFence::idempotency_key(std::string_view effect) const {
  HeldLease& lease = live();
  return make_scope_key({lease.key().tenant_id, lease.key().lease_execution_id, frame_->path,
                         effect});
}

SinkReply ExecutionFence::write(Sink& sink, std::string_view effect,
                                const std::string& payload) const {
  HeldLease& lease = live();
  lease.assert_held();
  const std::string key = idempotency_key(effect);
  Observer& observer = lease.services().observer;
  RuntimeEvent event{EventKind::kWriteSent, lease.holder(), lease.key(), lease.scope_key(),
                     lease.token(),         frame_->path,   key,         0};
  observer.on_event(event);
  const SinkReply reply = sink.write(SinkWrite{lease.scope_key(), lease.token(), key, payload});
  event.value = static_cast<std::int64_t>(reply.high_water);
  if (reply.outcome == SinkOutcome::kRefused) {
    event.kind = EventKind::kWriteRefused;
    observer.on_event(event);
    throw fenced(reply.high_water);
  }
  event.kind = EventKind::kWriteAccepted;
  event.detail = std::string(to_string(reply.outcome));
  observer.on_event(event);
  lease.assert_held();
  return reply;
}

}  // namespace fencesim::runtime
