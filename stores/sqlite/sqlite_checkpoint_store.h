#pragma once
// CheckpointStore in the same SQLite file as the lease table: a commit reads the key's lease row
// and writes the checkpoint in one BEGIN IMMEDIATE transaction (SERIALIZABLE), so no take can
// land between the token check and the write.
#include <string>

#include "runtime/checkpoint_store.h"
#include "stores/sqlite/sqlite_database.h"

namespace fencesim::stores {

class SqliteCheckpointStore : public runtime::CheckpointStore {
 public:
  SqliteCheckpointStore(SqliteDatabase& database, runtime::Observer& observer,
                        std::string name = "checkpoint-store");
  runtime::CommitResult commit_step(const runtime::LeaseKey& key, runtime::Token token,
                                    const std::string& step_path) override;
  runtime::CommitResult commit_tree(const runtime::LeaseKey& key, runtime::Token token) override;
  runtime::Checkpoint load(const runtime::LeaseKey& key) override;
  runtime::CancelStatus request_cancel(const runtime::LeaseKey& key) override;

 private:
  // Judges `token` against the key's lease row and, when it is the current unreleased epoch,
  // runs `write` in the same transaction; `write` returns false when the tree's recorded cancel
  // refuses it (the commit is then kCancelled and writes nothing).
  runtime::CommitResult commit(const runtime::LeaseKey& key, runtime::Token token,
                               const std::string& what, const std::function<bool()>& write);
  void load_into(const runtime::LeaseKey& key, runtime::Checkpoint& checkpoint);

  SqliteDatabase& database_;
  runtime::Observer& observer_;
  std::string name_;
};

}  // namespace fencesim::stores
