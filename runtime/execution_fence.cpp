#include "runtime/execution_fence.h"

#include <fmt/format.h>

#include "runtime/held_lease.h"
#include "runtime/scope_key.h"
#include "runtime/tree_cancel.h"

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
  HeldLease& lease = live();
  (void)lease.held_now();  // a belief that ran out expires the lease here, ending the belief
  return lease.confirmed_until_ns();
}

void ExecutionFence::assert_held() const {
  live().assert_held();
}

namespace {

// A confirm that could not be confirmed: a store was not reached, so nothing is known to have
// changed. The lease is not lost (the store may hold it for us, no other holder took it, the
// belief has not run out), so the error is not ExecutionLeaseLostError, which is the hand-over
// error and would give a live lease away: it is the store's unavailability, naming the lease.
[[noreturn]] void throw_unconfirmed(HeldLease& lease, std::string_view why) {
  throw StoreUnavailableError(fmt::format("confirmNow: token {} of scope {} not confirmed: {}",
                                          lease.token(), lease.scope_key(), why));
}

// The #360 cancel check of confirmNow(): reads the tree's cancel at the checkpoint store and
// throws ExecutionCancelledError once it is known. A store that cannot be reached cannot say that
// the tree was not cancelled, and confirmNow() is strict: it throws (see throw_unconfirmed).
// `still_running` is called after the read's round trip, before anything is decided: it throws
// if the confirm's step ended meanwhile.
template <typename StillRunning>
void check_cancel(TreeCancel* cancel, HeldLease& lease, const char* when,
                  const StillRunning& still_running) {
  if (cancel == nullptr) return;  // a frame without a pass (tests that build frames by hand)
  bool reached = true;
  try {
    cancel->read(when);
  } catch (const StoreUnavailableError&) {
    reached = false;
  }
  still_running();
  // A cancel does not hide a lost lease (red team re-read 2026-12-04, finding 6): a holder whose
  // lease ran out (it may be stale) is told of the loss, not of the cancel, or it would run its
  // cancel handling as a stale holder.
  lease.assert_held();
  cancel->throw_if_seen();
  if (!reached) throw_unconfirmed(lease, "the cancel check could not reach the checkpoint store");
}

}  // namespace

Nanoseconds ExecutionFence::confirm_now() const {
  HeldLease& lease = live();
  TreeCancel* cancel = frame_->cancel.get();
  // The loss first, then the cancel (check_cancel): a cancel does not hide a lost lease.
  lease.assert_held();
  if (cancel != nullptr) cancel->throw_if_seen();
  lease.signal().throw_if_aborted();
  lease.services().observer.on_event(RuntimeEvent{EventKind::kConfirmSent,
                                                  lease.holder(),
                                                  lease.key(),
                                                  lease.scope_key(),
                                                  lease.token(),
                                                  frame_->path,
                                                  {},
                                                  0});
  // The cancel checks (#360) come before and after the renewal: before, so that a confirm that
  // began after the cancel was recorded never returns (its read reaches the store after the
  // recording); after, so that a confirm returns only if the tree was not cancelled when its
  // renewal was already granted, just before the unchecked call it guards.
  //
  // The fence is read live across the round trips too (issue 29 item 3): a confirm made by a
  // withdrawal or a fiber the step spawned can outlive its step while the pass still holds the
  // lease for the next step, and its success would send an unchecked call in the name of a step
  // that has ended. After each round trip the frame is read again: a fence kept past its step
  // refuses (ExecutionContextUnavailableError), and no further round trip goes out in its name.
  const auto still_running = [this] { (void)live(); };
  check_cancel(cancel, lease, "confirm-before", still_running);
  // Strict: only a renewal the store granted, sent after the confirm began, lets the call go on.
  // A renewal not granted throws even while the old belief has not run out: the caller is about
  // to make a call that cannot check tokens, and an old belief is exactly what a stale holder has.
  // Refused, the lease is lost (renew_once lost it) and assertHeld throws the loss; not reached
  // (dropped, timed out, store down), the lease is still held and the confirm fails unconfirmed.
  const bool renewed = lease.renew_once();
  still_running();
  if (!renewed) {
    lease.assert_held();
    throw_unconfirmed(lease, "the strict renewal did not reach the lease store");
  }
  check_cancel(cancel, lease, "confirm-after", still_running);
  // Nothing below waits: the step that was running at the last round trip's end still runs.
  lease.assert_held();
  lease.signal().throw_if_aborted();
  return lease.confirmed_until_ns();
}

ExecutionFencedError ExecutionFence::fenced(Token observed_token) const {
  // A refusal stops the holder of its token whenever it arrives (red team re-read 2026-12-04,
  // finding 2): a step that handed its call to a fiber of its own and returned learns of the
  // refusal only after it ended. Its fence refuses then ("a fence kept past its step refuses"),
  // but only after the lease the step ran under was stopped with the refusal; otherwise the pass
  // would go on under the refused token (its next steps, its tree's completion).
  const Frame& frame = *frame_;
  if (frame.kind == FrameKind::kStep && frame.ended && frame.lease) {
    (void)fenced_error(*frame.lease, observed_token);
  }
  return fenced_error(live(), observed_token);
}

ExecutionFencedError ExecutionFence::fenced_error(HeldLease& lease, Token observed_token) {
  // The holder is stopped before anything else can fail: a refusal is a hand-over whatever token
  // the refusing system reports. A system that reports a token not later than ours (a high-water
  // mark kept under the wrong key, a sink that confuses tokens) still refused our write, and our
  // write must not be retried under this token: the error is the fenced one, carrying what the
  // system reported (ExecutionFencedError accepts it, see errors.h).
  //
  // A reported token above 2^53-1 is no token at all (tokens are safe integers, ADR-0023: "no
  // bigint"), and the error's own range check would throw before the holder is stopped (issue
  // 29 item 4). The system still refused: the error is the fenced one, its observed token the
  // largest safe token (later than any token held), and its cause names what was reported.
  std::exception_ptr cause;
  if (observed_token > kTokenMax) {
    cause = std::make_exception_ptr(TokenOverflowError(fmt::format(
        "the refusing system reported token {}, above 2^53-1: no token", observed_token)));
    observed_token = kTokenMax;
  }
  ExecutionFencedError error(lease.key(), lease.token(), observed_token, lease.scope_key(),
                             std::move(cause));
  lease.lose("fenced", std::make_exception_ptr(error));
  return error;
}

std::string ExecutionFence::idempotency_key(std::string_view effect) const {
  HeldLease& lease = live();
  return make_scope_key({lease.key().tenant_id, lease.key().lease_execution_id, frame_->path,
                         effect});
}

namespace {

// One fenced write in flight: its own fiber sends it and records the reply, so that the caller can
// leave at the abort while the request goes on.
struct WriteCall {
  bool done = false;
  SinkReply reply{};
  std::exception_ptr error;   // the sink could not be reached (StoreUnavailableError)
  std::exception_ptr fenced;  // the refusal's fenced error, if the sink refused
};

}  // namespace

SinkReply ExecutionFence::write(Sink& sink, std::string_view effect,
                                const std::string& payload) const {
  // The lease is captured when the call starts: a refusal that arrives after the step ended (the
  // call was made from another fiber, a withdrawal or a spawned one, and suspended) still stops
  // the holder of this token and throws the fenced error, never ExecutionContextUnavailableError.
  const std::shared_ptr<HeldLease> held = frame_->lease;
  HeldLease& lease = live();
  lease.assert_held();
  const std::string key = idempotency_key(effect);
  Observer& observer = lease.services().observer;
  RuntimeEvent event{EventKind::kWriteSent, lease.holder(), lease.key(), lease.scope_key(),
                     lease.token(),         frame_->path,   key,         0};
  observer.on_event(event);
  // The request leaves on a fiber of its own and the call waits for its reply or for the end of
  // the lease, whichever comes first. At the abort (the lease's own local expiry, found by its
  // expiry watchdog, or any loss) the call ends at once with the error that ended the lease
  // (ExecutionLeaseLostError; ExecutionFencedError after a refusal): the step cannot know whether
  // its write was overtaken, so it does not succeed, and it does not wait the 60 to 90 s of a
  // reply or an RPC timeout. The request stays in flight: the sink refuses it (a later holder
  // wrote) or it lands on its own, and its reply is recorded when it comes (write-refused stops
  // the holder of the token, already stopped).
  auto call = std::make_shared<WriteCall>();
  lease.services().env.spawn(
      "write " + key,
      [call, held, &sink, &observer, event,
       request = SinkWrite{lease.scope_key(), lease.token(), key, payload}]() mutable {
        try {
          call->reply = sink.write(request);
        } catch (const std::exception&) {
          call->error = std::current_exception();
        }
        // Whatever happens below, the fiber ends by waking the caller (issue 29 item 4: a reply
        // fiber that died here left the step blocked for as long as renewals succeeded).
        try {
          if (!call->error) {
            event.value = static_cast<std::int64_t>(call->reply.high_water);
            if (call->reply.outcome == SinkOutcome::kRefused) {
              event.kind = EventKind::kWriteRefused;
              observer.on_event(event);
              call->fenced = std::make_exception_ptr(fenced_error(*held, call->reply.high_water));
            } else {
              event.kind = EventKind::kWriteAccepted;
              event.detail = std::string(to_string(call->reply.outcome));
              observer.on_event(event);
            }
          }
        } catch (const std::exception&) {
          call->error = std::current_exception();
        }
        call->done = true;
        held->notify_changed();
      });
  while (!call->done && held->held_now()) held->wait_changed("a write's reply or the lease's loss");
  if (!call->done) std::rethrow_exception(held->lost_error());
  if (call->fenced) std::rethrow_exception(call->fenced);
  if (call->error) {
    // The sink could not be reached. If the lease ran out meanwhile (the holder was frozen while
    // its request timed out, and the reply fiber ran before anything noticed the expiry), the call
    // ends as any call outlived by its lease: ExecutionLeaseLostError, not the sink's error.
    held->assert_held();
    std::rethrow_exception(call->error);
  }
  held->assert_held();
  return call->reply;
}

}  // namespace fencesim::runtime
