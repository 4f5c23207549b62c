#pragma once
// ExecutionFence (ADR-0023): the lease the current step runs under, read live from its frame.
//
// - scope_key(), tenant_id(), lease_execution_id(), token(), confirmed_until_ns(): the lease's
//   facts; confirmedUntil is on the holder's monotonic clock.
// - assert_held(): throws ExecutionLeaseLostError (or the fenced error that stopped the holder)
//   unless the lease is held and confirmedUntil has not passed.
// - confirm_now(): a strict renewal round trip before a call that cannot check tokens; also runs
//   the cancel checks before and after. It returns only if the store granted a renewal sent after
//   the call began; otherwise it throws ExecutionLeaseLostError (or the error that ended the lease).
// - fenced(observed): the error for a refusal by a system that saw `observed`; it stops the holder
//   first, and is a hand-over (ExecutionFencedError) even when `observed` is not later than the
//   own token.
// - write(sink, effect, payload): a write of one intended effect, with the token and the effect's
//   key; its request may outlive the call (REQUIRES: `sink` outlives every request made with it).
// Every member throws ExecutionContextUnavailableError when its frame is not a running step's.
#include <memory>
#include <string>
#include <string_view>

#include "runtime/errors.h"
#include "runtime/frame.h"
#include "runtime/sink.h"

namespace fencesim::runtime {

class ExecutionFence {
 public:
  explicit ExecutionFence(std::shared_ptr<Frame> frame) : frame_(std::move(frame)) {}

  const std::string& scope_key() const;
  const std::string& tenant_id() const;
  const std::string& lease_execution_id() const;
  Token token() const;
  Nanoseconds confirmed_until_ns() const;

  void assert_held() const;
  Nanoseconds confirm_now() const;
  ExecutionFencedError fenced(Token observed_token) const;

  // The idempotency key of one intended effect of this step, named by the step (`effect`): the
  // same for every attempt of the step, so a re-run by the next holder deduplicates at the sink,
  // and different for each effect the step means, so a step's second write (or a withdrawal's
  // write in the step's frame) is never taken for a retry of its first and lost. The parts (the
  // lease key, the step path, the effect) are encoded and joined like a scope key's, so no two
  // effects share a key whatever their names hold.
  std::string idempotency_key(std::string_view effect) const;
  // Sends a fenced write of `effect`. A refusal throws the fenced error (and stops the holder). A
  // write that lands while the lease expired locally still ends the call with
  // ExecutionLeaseLostError: the step cannot know that its write was not overtaken.
  SinkReply write(Sink& sink, std::string_view effect, const std::string& payload) const;

 private:
  HeldLease& live() const;
  // The fenced error for a refusal under `lease`; stops its holder first.
  static ExecutionFencedError fenced_error(HeldLease& lease, Token observed_token);

  std::shared_ptr<Frame> frame_;
};

}  // namespace fencesim::runtime
