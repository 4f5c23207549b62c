#include "stores/sqlite/sqlite_checkpoint_store.h"

#include "stores/checkpoint_events.h"

namespace fencesim::stores {

using runtime::CommitResult;
using runtime::CommitStatus;
using runtime::LeaseKey;
using runtime::Token;

SqliteCheckpointStore::SqliteCheckpointStore(SqliteDatabase& database, runtime::Observer& observer,
                                             std::string name)
    : database_(database), observer_(observer), name_(std::move(name)) {}

CommitResult SqliteCheckpointStore::commit(const LeaseKey& key, Token token,
                                           const std::string& what,
                                           const std::function<bool()>& write) {
  CommitResult result{CommitStatus::kRefused, runtime::kTokenNone};
  database_.immediate([&] {
    SqliteStatement lease = database_.prepare(
        "SELECT epoch, released FROM fencesim_leases "
        "WHERE tenant_id = ?1 AND lease_execution_id = ?2");
    lease.bind(1, key.tenant_id).bind(2, key.lease_execution_id);
    if (!lease.step()) return;
    result.current_epoch = static_cast<Token>(lease.integer(0));
    // An expired lease nobody took since is still the key's epoch: no other holder can have
    // written. A released lease's holder has let go and must not write.
    if (result.current_epoch != token || lease.integer(1) != 0) return;
    if (!write()) {
      result.status = CommitStatus::kCancelled;
      return;
    }
    result.status = CommitStatus::kCommitted;
    SqliteStatement last = database_.prepare(
        "INSERT INTO fencesim_checkpoints (tenant_id, lease_execution_id, tree_completed, "
        "last_token) VALUES (?1, ?2, 0, ?3) ON CONFLICT (tenant_id, lease_execution_id) DO "
        "UPDATE SET last_token = excluded.last_token");
    last.bind(1, key.tenant_id)
        .bind(2, key.lease_execution_id)
        .bind(3, static_cast<std::int64_t>(token))
        .run();
  });
  observer_.on_event(checkpoint_event(name_, key, token, what, result));
  return result;
}

CommitResult SqliteCheckpointStore::commit_step(const LeaseKey& key, Token token,
                                                const std::string& step_path) {
  return commit(key, token, step_path, [&] {
    SqliteStatement insert = database_.prepare(
        "INSERT OR IGNORE INTO fencesim_checkpoint_steps "
        "(tenant_id, lease_execution_id, step_path) VALUES (?1, ?2, ?3)");
    insert.bind(1, key.tenant_id).bind(2, key.lease_execution_id).bind(3, step_path).run();
    return true;
  });
}

CommitResult SqliteCheckpointStore::commit_tree(const LeaseKey& key, Token token) {
  return commit(key, token, "<tree>", [&] {
    // BEGIN IMMEDIATE serializes this with request_cancel: a recorded cancel refuses completion.
    SqliteStatement cancelled = database_.prepare(
        "SELECT cancelled FROM fencesim_checkpoints "
        "WHERE tenant_id = ?1 AND lease_execution_id = ?2");
    cancelled.bind(1, key.tenant_id).bind(2, key.lease_execution_id);
    if (cancelled.step() && cancelled.integer(0) != 0) return false;
    SqliteStatement completed = database_.prepare(
        "INSERT INTO fencesim_checkpoints (tenant_id, lease_execution_id, tree_completed, "
        "last_token) VALUES (?1, ?2, 1, ?3) ON CONFLICT (tenant_id, lease_execution_id) DO "
        "UPDATE SET tree_completed = 1");
    completed.bind(1, key.tenant_id)
        .bind(2, key.lease_execution_id)
        .bind(3, static_cast<std::int64_t>(token))
        .run();
    return true;
  });
}

runtime::CancelStatus SqliteCheckpointStore::request_cancel(const LeaseKey& key) {
  runtime::CancelStatus status = runtime::CancelStatus::kRecorded;
  database_.immediate([&] {
    status = runtime::CancelStatus::kRecorded;
    SqliteStatement row = database_.prepare(
        "SELECT tree_completed, cancelled FROM fencesim_checkpoints "
        "WHERE tenant_id = ?1 AND lease_execution_id = ?2");
    row.bind(1, key.tenant_id).bind(2, key.lease_execution_id);
    if (row.step()) {
      if (row.integer(0) != 0) {
        status = runtime::CancelStatus::kTreeCompleted;
        return;
      }
      if (row.integer(1) != 0) {
        status = runtime::CancelStatus::kAlreadyRecorded;
        return;
      }
    }
    SqliteStatement record = database_.prepare(
        "INSERT INTO fencesim_checkpoints (tenant_id, lease_execution_id, tree_completed, "
        "last_token, cancelled) VALUES (?1, ?2, 0, 0, 1) ON CONFLICT (tenant_id, "
        "lease_execution_id) DO UPDATE SET cancelled = 1");
    record.bind(1, key.tenant_id).bind(2, key.lease_execution_id).run();
  });
  return status;
}

runtime::Checkpoint SqliteCheckpointStore::load(const LeaseKey& key) {
  runtime::Checkpoint checkpoint;
  database_.snapshot([&] { load_into(key, checkpoint); });
  return checkpoint;
}

void SqliteCheckpointStore::load_into(const LeaseKey& key, runtime::Checkpoint& checkpoint) {
  SqliteStatement row = database_.prepare(
      "SELECT tree_completed, last_token, cancelled FROM fencesim_checkpoints "
      "WHERE tenant_id = ?1 AND lease_execution_id = ?2");
  row.bind(1, key.tenant_id).bind(2, key.lease_execution_id);
  if (row.step()) {
    checkpoint.tree_completed = row.integer(0) != 0;
    checkpoint.last_token = static_cast<Token>(row.integer(1));
    checkpoint.cancelled = row.integer(2) != 0;
  }
  SqliteStatement steps = database_.prepare(
      "SELECT step_path FROM fencesim_checkpoint_steps "
      "WHERE tenant_id = ?1 AND lease_execution_id = ?2");
  steps.bind(1, key.tenant_id).bind(2, key.lease_execution_id);
  while (steps.step()) checkpoint.completed_steps.insert(steps.blob(0));
}

}  // namespace fencesim::stores
