#pragma once
// The errors of ADR-0023 and the one decision the runtime makes about every failure.
//
// Codes follow the rule that a subclass's code extends its parent's with '.': ExecutionError is
// "execution", ExecutionLeaseLostError "execution.lease-lost", ExecutionFencedError
// "execution.lease-lost.fenced", AggregateError "execution.aggregate", StepError
// "execution.step-failed": every class's code starts with its parent's, so a caller that tests
// `code starts with "execution"` sees every error of the runtime.
//
// Causes are std::exception_ptr, as in JavaScript's `cause`: any value may be a cause, and
// set_cause() lets a chain be closed into a cycle, which every walker here must survive.
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/types.h"

namespace fencesim::runtime {

class ExecutionError : public std::exception {
 public:
  static constexpr std::string_view kCode = "execution";

  explicit ExecutionError(std::string message, std::exception_ptr cause = nullptr);

  // A stable string per class; never changes with the message.
  virtual std::string_view code() const noexcept { return kCode; }
  const char* what() const noexcept override { return message_.c_str(); }

  // May be null. The cause is shared, not copied: copies of an error share its cause.
  std::exception_ptr cause() const noexcept { return cause_; }
  void set_cause(std::exception_ptr cause) noexcept { cause_ = std::move(cause); }

 private:
  std::string message_;
  std::exception_ptr cause_;
};

// The step's lease is gone: the holder of `token` for `key` must not write under it any more.
class ExecutionLeaseLostError : public ExecutionError {
 public:
  static constexpr std::string_view kCode = "execution.lease-lost";

  // REQUIRES: 1 <= token <= kTokenMax (a lost token was once held).
  ExecutionLeaseLostError(LeaseKey key, Token token, std::exception_ptr cause = nullptr);

  std::string_view code() const noexcept override { return kCode; }
  const LeaseKey& key() const noexcept { return key_; }
  Token token() const noexcept { return token_; }

 protected:
  ExecutionLeaseLostError(std::string message, LeaseKey key, Token token, std::exception_ptr cause);

 private:
  LeaseKey key_;
  Token token_;
};

// A refusal: a system that checks tokens had seen `observed_token` under `scope_key` (the key its
// high-water mark is kept by) and refused `token`. It is a hand-over error: somebody else took the
// lease, so the holder of `token` is stopped.
class ExecutionFencedError : public ExecutionLeaseLostError {
 public:
  static constexpr std::string_view kCode = "execution.lease-lost.fenced";

  // REQUIRES: 1 <= token <= kTokenMax, observed_token <= kTokenMax. Only a later take can refuse a
  // token, so a correct system reports observed_token > token; one that reports less (its
  // high-water mark kept under the wrong key, a token mix-up) still refused, and the refusal is
  // still a hand-over: the error is made, with what the system reported, and says so in its message.
  ExecutionFencedError(LeaseKey key, Token token, Token observed_token, std::string scope_key,
                       std::exception_ptr cause = nullptr);

  std::string_view code() const noexcept override { return kCode; }
  Token observed_token() const noexcept { return observed_token_; }
  const std::string& scope_key() const noexcept { return scope_key_; }

 private:
  Token observed_token_;
  std::string scope_key_;
};

// An ancestor's fence, or a frame without a held lease, was asked for.
class ExecutionContextUnavailableError : public ExecutionError {
 public:
  static constexpr std::string_view kCode = "execution.context-unavailable";

  using ExecutionError::ExecutionError;
  std::string_view code() const noexcept override { return kCode; }
};

// A withdrawal that found no frame it may run in: its step does not run on this instance and the
// tree is not known to have ended (ADR-0023 allows a fence-less withdrawal only after the tree
// ended). No frame with a held lease is available, so it is a context-unavailable error.
class WithdrawalRefusedError : public ExecutionContextUnavailableError {
 public:
  static constexpr std::string_view kCode = "execution.context-unavailable.withdrawal-refused";

  using ExecutionContextUnavailableError::ExecutionContextUnavailableError;
  std::string_view code() const noexcept override { return kCode; }
};

// The tree's cancel was requested by a client and recorded at the checkpoint store (#360). A
// cancel is final: the tree never completes, its steps are not retried and no new step of it
// starts. It is not a lease loss: the holder still holds its lease when it learns of the cancel,
// and it ends the tree (finishing its placement) rather than giving it to another holder.
class ExecutionCancelledError : public ExecutionError {
 public:
  static constexpr std::string_view kCode = "execution.cancelled";

  explicit ExecutionCancelledError(LeaseKey key, std::exception_ptr cause = nullptr);

  std::string_view code() const noexcept override { return kCode; }
  const LeaseKey& key() const noexcept { return key_; }

 private:
  LeaseKey key_;
};

// Several failures at once, like JavaScript's AggregateError (e.g. parallel branches).
class AggregateError : public ExecutionError {
 public:
  static constexpr std::string_view kCode = "execution.aggregate";

  // REQUIRES: no member is null. An empty message is replaced by one that counts the members.
  explicit AggregateError(std::vector<std::exception_ptr> errors, std::string message = {},
                          std::exception_ptr cause = nullptr);

  std::string_view code() const noexcept override { return kCode; }
  const std::vector<std::exception_ptr>& errors() const noexcept { return errors_; }

 private:
  std::vector<std::exception_ptr> errors_;
};

// An application's failure in a step, wrapping whatever it was caused by.
class StepError : public ExecutionError {
 public:
  static constexpr std::string_view kCode = "execution.step-failed";

  using ExecutionError::ExecutionError;
  std::string_view code() const noexcept override { return kCode; }
};

// The first ExecutionFencedError reachable from `error`, as the exception_ptr it was reached
// through (so rethrowing it rethrows the error itself, not a copy), or null. The walk is depth
// first: an error itself, then an AggregateError's members in order, then its ExecutionError
// cause, then its std::nested_exception (std::throw_with_nested). Each thrown object is visited
// once, so cycles end. Running out of memory terminates rather than misreport a refusal as absent.
std::exception_ptr find_fenced_ptr(const std::exception_ptr& error) noexcept;

// A copy of what find_fenced_ptr finds.
std::optional<ExecutionFencedError> find_fenced(const std::exception_ptr& error) noexcept;

// As find_fenced_ptr, for the first ExecutionCancelledError.
std::exception_ptr find_cancelled_ptr(const std::exception_ptr& error) noexcept;

// As find_fenced_ptr, for the first ExecutionLeaseLostError (a fenced error is one too).
std::exception_ptr find_lease_lost_ptr(const std::exception_ptr& error) noexcept;

// The code of the outermost error: its code() for an ExecutionError, "error" for another
// std::exception, "unknown" for anything else thrown and for null.
std::string error_code(const std::exception_ptr& error);

struct FailureDecision {
  enum class Kind { Fenced, LeaseLost, Cancelled, Aborted, Failed };

  Kind kind;
  std::exception_ptr error;         // What to rethrow.
  std::string code;                 // error_code(error).
  std::optional<Token> stop_token;  // Set for Fenced: the holder of this token must be stopped.
  std::optional<LeaseKey> stop_key;
};

// The decision made at every place the runtime decides about a failure. In order:
//   1. Fenced: an ExecutionFencedError anywhere in `error` (chain, aggregates, nesting), else
//      anywhere in `abort_reason`; it is checked before the signal's reason. `error` is the fenced
//      error itself and stop_token/stop_key name the holder to stop.
//   2. LeaseLost: an ExecutionLeaseLostError anywhere in `error`, searched like a fenced one, so
//      that wrapping a lost lease in a StepError or an aggregate cannot hide it. `error` is the
//      lease-lost error itself; nothing extra is stopped (the loss is the holder's own).
//   3. Cancelled: an ExecutionCancelledError anywhere in `error`, else anywhere in `abort_reason`
//      (a cancel aborts the signal with it): the tree was cancelled; `error` is that error. It
//      comes after a lost lease (a holder that lost its lease does not end the tree: the next
//      holder finds the cancel at its pass's start) and before any other abort reason.
//   4. Aborted: abort_reason is not null (the signal was aborted); `error` is abort_reason.
//   5. Failed: `error` itself.
// REQUIRES: error is not null. abort_reason is null when the signal was not aborted.
FailureDecision decide_failure(const std::exception_ptr& error,
                               const std::exception_ptr& abort_reason);

}  // namespace fencesim::runtime
