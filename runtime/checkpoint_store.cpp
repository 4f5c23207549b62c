#include "runtime/checkpoint_store.h"

namespace fencesim::runtime {

MemoryCheckpointStore::MemoryCheckpointStore(ExecutionLeaseRepository& leases, Observer& observer,
                                             std::string name)
    : leases_(leases), observer_(observer), name_(std::move(name)) {}

CommitResult MemoryCheckpointStore::judge(const LeaseKey& key, Token token,
                                          const std::string& what) {
  const std::optional<Lease> lease = leases_.read(key);
  const Token epoch = lease ? lease->token : kTokenNone;
  // An expired lease that nobody took since is still the key's epoch: no other holder can have
  // written, so the commit is safe. A released lease's holder has let go and must not write.
  const bool current = lease && lease->token == token && !lease->released;
  RuntimeEvent event{
      current ? EventKind::kStoreCheckpointCommitted : EventKind::kStoreCheckpointRefused,
      name_,
      key,
      {},
      token,
      what,
      {},
      static_cast<std::int64_t>(epoch)};
  observer_.on_event(event);
  return CommitResult{current ? CommitStatus::kCommitted : CommitStatus::kRefused, epoch};
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
  CommitResult result = judge(key, token, "<tree>");
  if (result.status == CommitStatus::kCommitted) {
    Checkpoint& checkpoint = checkpoints_[key];
    checkpoint.tree_completed = true;
    checkpoint.last_token = token;
  }
  return result;
}

Checkpoint MemoryCheckpointStore::load(const LeaseKey& key) {
  auto it = checkpoints_.find(key);
  return it == checkpoints_.end() ? Checkpoint{} : it->second;
}

}  // namespace fencesim::runtime
