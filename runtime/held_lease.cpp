#include "runtime/held_lease.h"

#include <algorithm>

#include "runtime/check.h"
#include "runtime/errors.h"
#include "runtime/lease_repository.h"
#include "runtime/scope_key.h"

namespace fencesim::runtime {

std::shared_ptr<HeldLease> HeldLease::take(LeaseServices services, const LeaseKey& key) {
  const Nanoseconds sent = services.env.monotonic_ns();
  const std::string scope_key = make_scope_key(key);  // one encoding for both of the take's events
  services.observer.on_event(RuntimeEvent{
      EventKind::kTakeSent, services.holder, key, scope_key, kTokenNone, {}, {}, sent});
  const TakeResult result = services.leases.take(key, services.holder, services.policy.ttl_ns);
  if (result.status != TakeStatus::kTaken) {
    services.observer.on_event(RuntimeEvent{EventKind::kTakeRefused,
                                            services.holder,
                                            key,
                                            scope_key,
                                            result.lease.token,
                                            {},
                                            result.lease.holder,
                                            0});
    return nullptr;
  }
  check(result.lease.token >= 1, "a granted token is at least 1");
  const Nanoseconds confirmed_until = services.policy.confirmed_until_ns(sent);
  std::shared_ptr<HeldLease> lease(
      new HeldLease(std::move(services), result.lease,
                    // The granted lease's own key, encoded again only if it were another key.
                    result.lease.key == key ? scope_key : make_scope_key(result.lease.key),
                    confirmed_until));
  lease->emit(EventKind::kLeaseTaken, {}, confirmed_until);
  return lease;
}

HeldLease::HeldLease(LeaseServices services, Lease lease, std::string scope_key,
                     Nanoseconds confirmed_until_ns)
    : services_(std::move(services)),
      key_(lease.key),
      scope_key_(std::move(scope_key)),
      token_(lease.token),
      confirmed_until_ns_(confirmed_until_ns),
      changed_(services_.env.make_notification()) {}

void HeldLease::emit(EventKind kind, std::string detail, std::int64_t value) {
  services_.observer.on_event(
      RuntimeEvent{kind, services_.holder, key_, scope_key_, token_, {}, std::move(detail), value});
}

bool HeldLease::held_now() {
  if (state_ != LeaseState::kHeld) return false;
  if (services_.env.monotonic_ns() >= confirmed_until_ns_) {
    lose("local-expiry", std::make_exception_ptr(ExecutionLeaseLostError(key_, token_)));
    return false;
  }
  return true;
}

std::exception_ptr HeldLease::lost_error() const {
  check(state_ != LeaseState::kHeld, "lost_error() of a lease that is not held");
  return lost_error_ ? lost_error_ : std::make_exception_ptr(ExecutionLeaseLostError(key_, token_));
}

void HeldLease::assert_held() {
  if (held_now()) return;
  std::rethrow_exception(lost_error());
}

void HeldLease::lose(std::string reason, std::exception_ptr error) {
  if (state_ != LeaseState::kHeld) {
    // A refusal that lands after the lease ended (its write was left in flight at the abort, or
    // at a yield: a withdrawal in a step's frame may still be writing when the remote-children
    // wait gives the lease back) is kept as the error that ended it, so that a decision made
    // later (the pass's, when its retake is refused) finds the refusal first.
    if (reason == "fenced" && lost_reason_ != "fenced") {
      lost_reason_ = std::move(reason);
      lost_error_ = std::move(error);
    }
    return;
  }
  state_ = LeaseState::kLost;
  end_belief();
  lost_reason_ = std::move(reason);
  lost_error_ = error;
  abort_.abort(std::move(error));
  emit(EventKind::kLeaseLost, lost_reason_);
  changed_->notify_all();
}

void HeldLease::abort_steps(std::exception_ptr reason) {
  abort_.abort(std::move(reason));
  changed_->notify_all();
}

void HeldLease::end_belief() {
  // A lease no longer held is believed until now at the latest: confirmedUntil never reports a
  // future moment for a lease that was lost or given back.
  confirmed_until_ns_ = std::min(confirmed_until_ns_, services_.env.monotonic_ns());
}

bool HeldLease::renew_once() {
  if (state_ != LeaseState::kHeld) return false;
  const Nanoseconds sent = services_.env.monotonic_ns();
  emit(EventKind::kRenewSent, {}, sent);
  RenewResult result{RenewStatus::kUnknownKey, std::nullopt};
  bool reached = true;
  try {
    result = services_.leases.renew(key_, services_.holder, token_, services_.policy.ttl_ns);
  } catch (const StoreUnavailableError&) {
    reached = false;  // Unknown outcome: keep believing the old confirmedUntil, no longer.
  }
  if (!reached) return false;
  // A reply that arrives after the lease was lost locally changes nothing: a lost lease never
  // comes back, even if the store renewed it.
  if (state_ != LeaseState::kHeld) return false;
  if (result.status != RenewStatus::kRenewed) {
    emit(EventKind::kRenewRefused, std::string(to_string(result.status)));
    lose(std::string("renew-refused:") + std::string(to_string(result.status)),
         std::make_exception_ptr(ExecutionLeaseLostError(key_, token_)));
    return false;
  }
  confirmed_until_ns_ = std::max(confirmed_until_ns_, services_.policy.confirmed_until_ns(sent));
  emit(EventKind::kLeaseRenewed, {}, confirmed_until_ns_);
  return held_now();
}

void HeldLease::release() {
  if (state_ != LeaseState::kHeld) return;
  state_ = LeaseState::kReleased;
  end_belief();
  abort_.abort(std::make_exception_ptr(ExecutionLeaseLostError(key_, token_)));
  emit(EventKind::kLeaseReleased);
  changed_->notify_all();
  try {
    services_.leases.release(key_, services_.holder, token_);
  } catch (const StoreUnavailableError&) {
    // The lease then ends by expiry at the store; the holder has stopped using it either way.
  }
}

void HeldLease::start_timers() {
  auto self = shared_from_this();
  services_.env.spawn("renew " + scope_key_, [self] { self->renew_loop(); });
  services_.env.spawn("expiry " + scope_key_, [self] { self->expiry_loop(); });
}

void HeldLease::renew_loop() {
  while (state_ == LeaseState::kHeld) {
    services_.env.sleep(services_.policy.renew_interval_ns);
    if (!held_now()) return;
    renew_once();
  }
}

void HeldLease::expiry_loop() {
  while (held_now()) {
    services_.env.sleep(confirmed_until_ns_ - services_.env.monotonic_ns());
  }
}

}  // namespace fencesim::runtime
