#pragma once
// Checkpoints of a tree, fenced by token (ADR-0023, #335: the framework fences its own checkpoint
// writes). A checkpoint lives under the tree's lease key; a commit lands only if its token is the
// key's current epoch at the lease table and that lease was not released, checked in the same
// atomic operation as the write (the store is co-located with the lease table, as in a database).
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "runtime/observer.h"
#include "runtime/store_errors.h"
#include "runtime/types.h"

namespace fencesim::runtime {

// The memory store judges tokens by the lease table it is given (runtime/lease_repository.h).
class ExecutionLeaseRepository;

struct Checkpoint {
  std::set<std::string> completed_steps;  // step paths whose outcome committed
  bool tree_completed = false;
  Token last_token = kTokenNone;  // token of the last committed write
  // A client's cancel of the tree was recorded (#360): the tree never completes from now on.
  bool cancelled = false;
};

// kCancelled: the tree's completion was refused because its cancel was recorded first (only
// commit_tree answers it; the holder's token was current).
enum class CommitStatus { kCommitted, kRefused, kCancelled };
enum class CancelStatus { kRecorded, kAlreadyRecorded, kTreeCompleted };
std::string_view to_string(CancelStatus status);

struct CommitResult {
  CommitStatus status;
  Token current_epoch = kTokenNone;  // the key's epoch at the lease table when judged
};

class CheckpointStore {
 public:
  virtual ~CheckpointStore() = default;
  // Records that `step_path` of the tree under `key` completed, written by the holder of `token`.
  virtual CommitResult commit_step(const LeaseKey& key, Token token,
                                   const std::string& step_path) = 0;
  // Records that the whole tree completed. A tree whose cancel was recorded never completes: a
  // commit under the current token answers kCancelled and writes nothing. The cancel and the
  // completion are judged in one atomic operation of the store, so exactly one of them wins.
  virtual CommitResult commit_tree(const LeaseKey& key, Token token) = 0;
  virtual Checkpoint load(const LeaseKey& key) = 0;
  // A client's cancel of the tree under `key` (#360), durable once recorded; loads report it
  // (Checkpoint::cancelled) and holders learn it from there. Needs no lease: any client may ask.
  // A tree that already completed cannot be cancelled (kTreeCompleted, nothing recorded); a
  // second request is kAlreadyRecorded. A key never placed may be cancelled (its cancel is
  // recorded before its first pass, which then runs no step).
  virtual CancelStatus request_cancel(const LeaseKey& key) = 0;
};

class MemoryCheckpointStore final : public CheckpointStore {
 public:
  MemoryCheckpointStore(ExecutionLeaseRepository& leases, Observer& observer,
                        std::string name = "checkpoint-store");
  CommitResult commit_step(const LeaseKey& key, Token token, const std::string& step_path) override;
  CommitResult commit_tree(const LeaseKey& key, Token token) override;
  Checkpoint load(const LeaseKey& key) override;
  CancelStatus request_cancel(const LeaseKey& key) override;

 private:
  // `cancelled`: the tree's cancel was recorded (a current token then answers kCancelled).
  CommitResult judge(const LeaseKey& key, Token token, const std::string& what,
                     bool cancelled = false);

  ExecutionLeaseRepository& leases_;
  Observer& observer_;
  std::string name_;
  std::map<LeaseKey, Checkpoint> checkpoints_;
};

}  // namespace fencesim::runtime
