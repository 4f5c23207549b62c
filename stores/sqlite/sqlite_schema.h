#pragma once
// The SQLite schema of the fencesim stores (version kSchemaVersion), created in one transaction
// when a file is new. Keys, holders and names are BLOBs: every byte kept, NUL included.
namespace fencesim::stores {

inline constexpr const char* kSqliteSchema = R"sql(
CREATE TABLE fencesim_schema (version INTEGER NOT NULL);

-- One row per lease key. `epoch` is the key's own counter (the token): 1 for its first holder,
-- + 1 with every take; never a rowid or a database-wide revision.
CREATE TABLE fencesim_leases (
  tenant_id BLOB NOT NULL,
  lease_execution_id BLOB NOT NULL,
  epoch INTEGER NOT NULL CHECK (epoch BETWEEN 1 AND 9007199254740991),
  holder BLOB NOT NULL,
  expires_at_ns INTEGER NOT NULL,  -- the store's wall clock
  released INTEGER NOT NULL CHECK (released IN (0, 1)),
  PRIMARY KEY (tenant_id, lease_execution_id)
) WITHOUT ROWID;

CREATE TABLE fencesim_checkpoints (
  tenant_id BLOB NOT NULL,
  lease_execution_id BLOB NOT NULL,
  tree_completed INTEGER NOT NULL,
  last_token INTEGER NOT NULL,
  -- A client's cancel of the tree was recorded (#360). Never set together with tree_completed:
  -- the cancel and the completion are judged in one transaction, the first one wins.
  cancelled INTEGER NOT NULL DEFAULT 0 CHECK (cancelled IN (0, 1)),
  PRIMARY KEY (tenant_id, lease_execution_id)
) WITHOUT ROWID;

CREATE TABLE fencesim_checkpoint_steps (
  tenant_id BLOB NOT NULL,
  lease_execution_id BLOB NOT NULL,
  step_path BLOB NOT NULL,
  PRIMARY KEY (tenant_id, lease_execution_id, step_path)
) WITHOUT ROWID;

CREATE TABLE fencesim_placements (
  sequence INTEGER PRIMARY KEY AUTOINCREMENT,  -- placement order
  tenant_id BLOB NOT NULL,
  lease_execution_id BLOB NOT NULL,
  workflow BLOB NOT NULL,
  parent_tenant_id BLOB,
  parent_lease_execution_id BLOB,
  finished INTEGER NOT NULL,
  UNIQUE (tenant_id, lease_execution_id)
);

-- The token-checking sink: a high-water token per (sink, scope key), and each idempotency key of
-- a scope key applied once.
CREATE TABLE fencesim_sink_high_water (
  sink BLOB NOT NULL,
  scope_key BLOB NOT NULL,
  high_water INTEGER NOT NULL,
  PRIMARY KEY (sink, scope_key)
) WITHOUT ROWID;

CREATE TABLE fencesim_sink_effects (
  sequence INTEGER PRIMARY KEY AUTOINCREMENT,  -- commit order (writers are serialized)
  sink BLOB NOT NULL,
  scope_key BLOB NOT NULL,
  idempotency_key BLOB NOT NULL,
  token INTEGER NOT NULL,
  payload BLOB NOT NULL,
  UNIQUE (sink, scope_key, idempotency_key)
);
)sql";

}  // namespace fencesim::stores
