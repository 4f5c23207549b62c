#include "runtime/tree_cancel.h"

#include "runtime/check.h"
#include "runtime/errors.h"

namespace fencesim::runtime {

void TreeCancel::learn_from(const Checkpoint& checkpoint, const char* how) {
  if (checkpoint.cancelled && !seen()) learn(how);
}

void TreeCancel::read(const char* how) {
  if (seen()) return;
  learn_from(checkpoints_.load(key_), how);
}

void TreeCancel::set_lease(std::shared_ptr<HeldLease> lease) {
  lease_ = std::move(lease);
  // A lease taken back after the cancel was seen runs no step either: its signal says so.
  if (seen()) lease_->abort_steps(error_);
}

void TreeCancel::learn(const char* how) {
  check(lease_ != nullptr, "a pass learns of its cancel while it has a lease (held or yielded)");
  error_ = std::make_exception_ptr(ExecutionCancelledError(key_));
  LeaseServices& services = lease_->services();
  services.observer.on_event(RuntimeEvent{EventKind::kCancelSeen, services.holder, key_,
                                          lease_->scope_key(), lease_->token(), {}, how, 0});
  lease_->abort_steps(error_);
}

void TreeCancel::start_watcher(const std::shared_ptr<TreeCancel>& cancel) {
  check(cancel->lease_ != nullptr, "the watcher starts with the pass's lease");
  Env& env = cancel->lease_->services().env;
  env.spawn("cancel-watch " + cancel->lease_->scope_key(), [cancel] {
    // The same interval as the renewal timer: a recorded cancel is seen within one interval while
    // the store can be reached (a confirmNow or a step start may see it sooner).
    while (!cancel->pass_over_ && !cancel->seen()) {
      cancel->lease_->services().env.sleep(cancel->lease_->services().policy.renew_interval_ns);
      if (cancel->pass_over_) return;
      try {
        cancel->read("watcher");
      } catch (const StoreUnavailableError&) {
        // Not known yet: read again at the next interval.
      }
    }
  });
}

}  // namespace fencesim::runtime
