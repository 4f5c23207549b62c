#pragma once
// How a pass learns that a client cancelled its tree (#360). The cancel is recorded at the
// checkpoint store (CheckpointStore::request_cancel) and read from there: by the pass's start
// (the checkpoint it resumes from), by a watcher beside the lease's renewal timer, by every step
// start, by every confirmNow() (before and after its renewal) and by the tree's completion commit
// (which the store refuses once the cancel is recorded). Whoever learns it first aborts the
// signal of the steps running under the pass's lease with ExecutionCancelledError and reports
// kCancelSeen once; from then on no step of the pass starts and every confirmNow() refuses.
#include <exception>
#include <memory>
#include <string>

#include "runtime/checkpoint_store.h"
#include "runtime/held_lease.h"

namespace fencesim::runtime {

class TreeCancel {
 public:
  TreeCancel(CheckpointStore& checkpoints, LeaseKey key) : checkpoints_(checkpoints), key_(key) {}

  // Whether the pass knows that its tree was cancelled.
  bool seen() const { return error_ != nullptr; }
  // The ExecutionCancelledError the pass ends with. REQUIRES: seen().
  std::exception_ptr error() const { return error_; }
  // Throws the ExecutionCancelledError if the pass knows that its tree was cancelled.
  void throw_if_seen() const {
    if (error_) std::rethrow_exception(error_);
  }
  // Learns of the cancel if `checkpoint` (read for the tree) records it; `how` says where it was
  // read (reported in kCancelSeen's detail).
  void learn_from(const Checkpoint& checkpoint, const char* how);
  // Reads the tree's checkpoint at the store and learns of a recorded cancel.
  // Throws StoreUnavailableError when the store cannot be reached.
  void read(const char* how);
  // The lease the pass's steps run under now (a new one after a retake): its signal is the one a
  // cancel aborts.
  void set_lease(std::shared_ptr<HeldLease> lease);
  // The pass is over: the watcher stops at its next wake.
  void end_pass() { pass_over_ = true; }
  // Starts the watcher: a fiber of the holder's process that reads the store once every renewal
  // interval of the lease until the pass is over or the cancel is seen. Keeps itself alive.
  static void start_watcher(const std::shared_ptr<TreeCancel>& cancel);

 private:
  void learn(const char* how);

  CheckpointStore& checkpoints_;
  LeaseKey key_;
  std::shared_ptr<HeldLease> lease_;
  std::exception_ptr error_;
  bool pass_over_ = false;
};

}  // namespace fencesim::runtime
