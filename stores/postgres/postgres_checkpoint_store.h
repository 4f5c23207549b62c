#pragma once
// CheckpointStore in the same PostgreSQL schema as the lease table: a commit takes a FOR SHARE
// lock on the key's lease row, judges the token, and writes the checkpoint in the same READ
// COMMITTED transaction. A take needs FOR UPDATE on that row, so it waits until the commit is
// done: no take can land between the token check and the write.
#include <functional>
#include <string>

#include "runtime/checkpoint_store.h"
#include "stores/postgres/postgres_database.h"

namespace fencesim::stores {

class PostgresCheckpointStore : public runtime::CheckpointStore {
 public:
  PostgresCheckpointStore(PostgresDatabase& database, runtime::Observer& observer,
                          std::string name = "checkpoint-store");
  runtime::CommitResult commit_step(const runtime::LeaseKey& key, runtime::Token token,
                                    const std::string& step_path) override;
  runtime::CommitResult commit_tree(const runtime::LeaseKey& key, runtime::Token token) override;
  runtime::Checkpoint load(const runtime::LeaseKey& key) override;
  runtime::CancelStatus request_cancel(const runtime::LeaseKey& key) override;

 private:
  // `write` returns false when the tree's recorded cancel refuses it (kCancelled, nothing written).
  runtime::CommitResult commit(const runtime::LeaseKey& key, runtime::Token token,
                               const std::string& what,
                               const std::function<bool(pqxx::work&)>& write);

  PostgresDatabase& database_;
  runtime::Observer& observer_;
  std::string name_;
};

}  // namespace fencesim::stores
