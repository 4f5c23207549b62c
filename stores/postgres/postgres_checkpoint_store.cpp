#include "stores/postgres/postgres_checkpoint_store.h"

#include "stores/checkpoint_events.h"
#include "stores/hex.h"

namespace fencesim::stores {

using runtime::CommitResult;
using runtime::CommitStatus;
using runtime::LeaseKey;
using runtime::Token;

PostgresCheckpointStore::PostgresCheckpointStore(PostgresDatabase& database,
                                                 runtime::Observer& observer, std::string name)
    : database_(database), observer_(observer), name_(std::move(name)) {}

CommitResult PostgresCheckpointStore::commit(const LeaseKey& key, Token token,
                                             const std::string& what,
                                             const std::function<bool(pqxx::work&)>& write) {
  const std::string tenant = to_hex(key.tenant_id);
  const std::string execution = to_hex(key.lease_execution_id);
  CommitResult result{CommitStatus::kRefused, runtime::kTokenNone};
  database_.read_committed([&](pqxx::work& work) {
    result = CommitResult{CommitStatus::kRefused, runtime::kTokenNone};
    const pqxx::result lease = work.exec_params(
        "SELECT epoch, released FROM fencesim_leases "
        "WHERE tenant_id = decode($1, 'hex') AND lease_execution_id = decode($2, 'hex') "
        "FOR SHARE",
        tenant, execution);
    if (lease.empty()) return;
    result.current_epoch = lease[0][0].as<Token>();
    // An expired lease nobody took since is still the key's epoch: no other holder can have
    // written. A released lease's holder has let go and must not write.
    if (result.current_epoch != token || lease[0][1].as<bool>()) return;
    if (!write(work)) {
      result.status = CommitStatus::kCancelled;
      return;
    }
    result.status = CommitStatus::kCommitted;
    work.exec_params(
        "INSERT INTO fencesim_checkpoints (tenant_id, lease_execution_id, tree_completed, "
        "last_token) VALUES (decode($1, 'hex'), decode($2, 'hex'), false, $3) "
        "ON CONFLICT (tenant_id, lease_execution_id) DO UPDATE SET last_token = $3",
        tenant, execution, token);
  });
  observer_.on_event(checkpoint_event(name_, key, token, what, result));
  return result;
}

CommitResult PostgresCheckpointStore::commit_step(const LeaseKey& key, Token token,
                                                  const std::string& step_path) {
  return commit(key, token, step_path, [&](pqxx::work& work) {
    work.exec_params(
        "INSERT INTO fencesim_checkpoint_steps (tenant_id, lease_execution_id, step_path) "
        "VALUES (decode($1, 'hex'), decode($2, 'hex'), decode($3, 'hex')) "
        "ON CONFLICT DO NOTHING",
        to_hex(key.tenant_id), to_hex(key.lease_execution_id), to_hex(step_path));
    return true;
  });
}

CommitResult PostgresCheckpointStore::commit_tree(const LeaseKey& key, Token token) {
  return commit(key, token, "<tree>", [&](pqxx::work& work) {
    // The upsert locks the row and reads `cancelled` under that lock (ON CONFLICT DO UPDATE sees
    // the latest committed version even under READ COMMITTED): a recorded cancel refuses it.
    const pqxx::result completed = work.exec_params(
        "INSERT INTO fencesim_checkpoints (tenant_id, lease_execution_id, tree_completed, "
        "last_token) VALUES (decode($1, 'hex'), decode($2, 'hex'), true, $3) "
        "ON CONFLICT (tenant_id, lease_execution_id) DO UPDATE SET tree_completed = true "
        "WHERE NOT fencesim_checkpoints.cancelled RETURNING 1",
        to_hex(key.tenant_id), to_hex(key.lease_execution_id), token);
    return !completed.empty();
  });
}

runtime::CancelStatus PostgresCheckpointStore::request_cancel(const LeaseKey& key) {
  const std::string tenant = to_hex(key.tenant_id);
  const std::string execution = to_hex(key.lease_execution_id);
  runtime::CancelStatus status = runtime::CancelStatus::kRecorded;
  database_.read_committed([&](pqxx::work& work) {
    // One upsert decides, under the row's lock, against a completion committed first.
    const pqxx::result recorded = work.exec_params(
        "INSERT INTO fencesim_checkpoints (tenant_id, lease_execution_id, tree_completed, "
        "last_token, cancelled) VALUES (decode($1, 'hex'), decode($2, 'hex'), false, 0, true) "
        "ON CONFLICT (tenant_id, lease_execution_id) DO UPDATE SET cancelled = true "
        "WHERE NOT fencesim_checkpoints.tree_completed AND NOT fencesim_checkpoints.cancelled "
        "RETURNING 1",
        tenant, execution);
    if (!recorded.empty()) {
      status = runtime::CancelStatus::kRecorded;
      return;
    }
    // Not recorded now: the row is completed or cancelled already, and both are final.
    const pqxx::result row = work.exec_params(
        "SELECT tree_completed FROM fencesim_checkpoints "
        "WHERE tenant_id = decode($1, 'hex') AND lease_execution_id = decode($2, 'hex')",
        tenant, execution);
    status = !row.empty() && row[0][0].as<bool>() ? runtime::CancelStatus::kTreeCompleted
                                                  : runtime::CancelStatus::kAlreadyRecorded;
  });
  return status;
}

runtime::Checkpoint PostgresCheckpointStore::load(const LeaseKey& key) {
  const std::string tenant = to_hex(key.tenant_id);
  const std::string execution = to_hex(key.lease_execution_id);
  runtime::Checkpoint checkpoint;
  // Under READ COMMITTED each statement has its own snapshot: one statement reads both tables,
  // so a commit landing in between cannot tear the checkpoint.
  database_.read_committed([&](pqxx::work& work) {
    checkpoint = runtime::Checkpoint{};
    const pqxx::result rows = work.exec_params(
        "SELECT c.tree_completed, c.last_token, NULL, c.cancelled FROM fencesim_checkpoints c "
        "WHERE c.tenant_id = decode($1, 'hex') AND c.lease_execution_id = decode($2, 'hex') "
        "UNION ALL "
        "SELECT NULL, NULL, encode(s.step_path, 'hex'), NULL FROM fencesim_checkpoint_steps s "
        "WHERE s.tenant_id = decode($1, 'hex') AND s.lease_execution_id = decode($2, 'hex')",
        tenant, execution);
    for (const pqxx::row& row : rows) {
      if (row[2].is_null()) {
        checkpoint.tree_completed = row[0].as<bool>();
        checkpoint.last_token = row[1].as<Token>();
        checkpoint.cancelled = row[3].as<bool>();
      } else {
        checkpoint.completed_steps.insert(from_hex(row[2].as<std::string>()));
      }
    }
  });
  return checkpoint;
}

}  // namespace fencesim::stores
