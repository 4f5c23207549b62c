#pragma once
// One lease as its holder knows it: the token, what it believes (confirmedUntil on its own
// monotonic clock) and whether it still holds it. It renews itself on a timer and expires itself
// locally when confirmedUntil passes without a renewal; a lost lease aborts the signal of every
// step running under it and never comes back (a later take is a new HeldLease with a new token).
#include <exception>
#include <memory>
#include <string>

#include "runtime/abort_signal.h"
#include "runtime/env.h"
#include "runtime/lease_policy.h"
#include "runtime/lease.h"
#include "runtime/observer.h"
#include "runtime/store_errors.h"

namespace fencesim::runtime {

// Called through by held_lease.cpp only (runtime/lease_repository.h).
class ExecutionLeaseRepository;

enum class LeaseState { kHeld, kLost, kReleased };

struct LeaseServices {
  Env& env;
  ExecutionLeaseRepository& leases;
  Observer& observer;
  LeasePolicy policy;
  HolderId holder;
};

class HeldLease : public std::enable_shared_from_this<HeldLease> {
 public:
  // Takes `key` at the store. Returns null if a live lease refused the take.
  // Throws StoreUnavailableError if the store could not be reached.
  static std::shared_ptr<HeldLease> take(LeaseServices services, const LeaseKey& key);

  const LeaseKey& key() const { return key_; }
  const std::string& scope_key() const { return scope_key_; }
  Token token() const { return token_; }
  const HolderId& holder() const { return services_.holder; }
  // The end of the belief on the holder's monotonic clock; once the lease is no longer held, it
  // is no later than the moment it ended.
  Nanoseconds confirmed_until_ns() const { return confirmed_until_ns_; }
  LeaseState state() const { return state_; }
  const std::string& lost_reason() const { return lost_reason_; }
  const AbortSignal& signal() const { return abort_.signal(); }
  LeaseServices& services() { return services_; }

  // Held, and confirmedUntil not yet passed on the holder's monotonic clock. Expires the lease
  // locally when it has passed.
  bool held_now();
  // Throws the error that ended the lease (ExecutionLeaseLostError or the fenced error that
  // stopped it) unless held_now().
  void assert_held();
  // The error that ended the lease: what stopped it (a refusal, a local expiry), or a plain
  // ExecutionLeaseLostError for a lease given back. REQUIRES: not held.
  std::exception_ptr lost_error() const;

  // Starts the renewal timer and the local-expiry watchdog (two fibers of the holder's process).
  void start_timers();
  // One renewal round trip. Returns true if the store renewed it and it is still held.
  // A refusal loses the lease; an unreachable store leaves it to the local expiry.
  bool renew_once();
  // Gives the lease back (the tree ended, or yields during a remote-children wait).
  void release();
  // Aborts the signal of every step under the lease with `reason` without ending the lease (the
  // tree was cancelled: the holder still holds it while it ends the tree). The first reason wins.
  void abort_steps(std::exception_ptr reason);
  // Ends the lease with `reason`, aborting every step under it with `error`.
  void lose(std::string reason, std::exception_ptr error);
  // A wake-up for callers waiting on the lease's end: notified when the lease is lost (by a
  // refusal, a renewal refusal, or the local expiry that the expiry watchdog finds) or released,
  // and by whoever else changes what such a caller waits for (see notify_changed()).
  void wait_changed(const char* awaited) { changed_->wait(awaited); }
  void notify_changed() { changed_->notify_all(); }

 private:
  HeldLease(LeaseServices services, Lease lease, std::string scope_key,
            Nanoseconds confirmed_until_ns);
  void emit(EventKind kind, std::string detail = {}, std::int64_t value = 0);
  void end_belief();
  void renew_loop();
  void expiry_loop();

  LeaseServices services_;
  LeaseKey key_;
  std::string scope_key_;
  Token token_;
  Nanoseconds confirmed_until_ns_;
  LeaseState state_ = LeaseState::kHeld;
  std::string lost_reason_;
  std::exception_ptr lost_error_;
  AbortController abort_;
  std::unique_ptr<Notification> changed_;
};

}  // namespace fencesim::runtime
