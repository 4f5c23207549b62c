#include "runtime/checkpoint_store.h"

#include "runtime/lease_repository.h"

namespace fencesim::runtime {

std::string_view to_string(CancelStatus status) {
  switch (status) {
    case CancelStatus::kRecorded:
      return "recorded";
    case CancelStatus::kAlreadyRecorded:
      return "already-recorded";
    case CancelStatus::kTreeCompleted:
      return "tree-completed";
  }
  return "unknown";
}

MemoryCheckpointStore::MemoryCheckpointStore(ExecutionLeaseRepository& leases, Observer& observer,
                                             std::string name)
    : leases_(leases), observer_(observer), name_(std::move(name)) {}

CommitResult MemoryCheckpointStore::judge(const LeaseKey& key, Token token, const std::string& what,
                                          bool cancelled) {
  const std::optional<Lease> lease = leases_.read(key);
  const Token epoch = lease ? lease->token : kTokenNone;
  // An expired lease that nobody took since is still the key's epoch: no other holder can have
  // written, so the commit is safe. A released lease's holder has let go and must not write.
  const bool current = lease && lease->token == token && !lease->released;
  const CommitStatus status = !current   ? CommitStatus::kRefused
                              : cancelled ? CommitStatus::kCancelled
                                          : CommitStatus::kCommitted;
  RuntimeEvent event{status == CommitStatus::kCommitted ? EventKind::kStoreCheckpointCommitted
                                                        : EventKind::kStoreCheckpointRefused,
                     name_,
                     key,
                     {},
                     token,
                     what,
                     status == CommitStatus::kCancelled ? "cancelled" : "",
                     static_cast<std::int64_t>(epoch)};
  observer_.on_event(event);
  return CommitResult{status, epoch};
}

CommitResult MemoryCheckpointStore::commit_step(const LeaseKey& key, Token token,
                                                const std::string& step_path) {
  CommitResult result = judge(key, token, step_path);
  if (result.status == CommitStatus::kCommitted) {
    Checkpoint& checkpoint = checkpoints_[key];
    checkpoint.completed_steps.insert(step_path);
    checkpoint.last_token = token;
  }
  return result;
}

CommitResult MemoryCheckpointStore::commit_tree(const LeaseKey& key, Token token) {
  // A recorded cancel came first: the tree never completes. A stale token is still refused as
  // such (the refusal that stops a stale holder matters more than the cancel it learns later).
  auto it = checkpoints_.find(key);
  CommitResult result =
      judge(key, token, "<tree>", it != checkpoints_.end() && it->second.cancelled);
  if (result.status == CommitStatus::kCommitted) {
    Checkpoint& checkpoint = checkpoints_[key];
    checkpoint.tree_completed = true;
    checkpoint.last_token = token;
  }
  return result;
}

CancelStatus MemoryCheckpointStore::request_cancel(const LeaseKey& key) {
  Checkpoint& checkpoint = checkpoints_[key];
  if (checkpoint.tree_completed) return CancelStatus::kTreeCompleted;
  if (checkpoint.cancelled) return CancelStatus::kAlreadyRecorded;
  checkpoint.cancelled = true;
  return CancelStatus::kRecorded;
}

Checkpoint MemoryCheckpointStore::load(const LeaseKey& key) {
  auto it = checkpoints_.find(key);
  return it == checkpoints_.end() ? Checkpoint{} : it->second;
}

}  // namespace fencesim::runtime
