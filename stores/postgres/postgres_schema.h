#pragma once
// The PostgreSQL schema of the fencesim stores (version kSchemaVersion), created in one transaction
// inside its own namespace when absent. Keys, holders and names are bytea: every byte kept, NUL
// included (TEXT rejects NUL). Times are nanoseconds of the SERVER's clock.
namespace fencesim::stores {

inline constexpr const char* kPostgresSchema = R"sql(
CREATE TABLE fencesim_schema (version integer NOT NULL);

-- The store's now, in nanoseconds since the epoch, by the server's own clock: clock_timestamp()
-- is the time of the call (now() would be the transaction's start, earlier than the lock wait).
-- `override_ns` lets the contract tests drive the store's clock; NULL (every real caller) means
-- the server's clock.
CREATE FUNCTION fencesim_now_ns(override_ns bigint) RETURNS bigint LANGUAGE sql VOLATILE AS
$$ SELECT coalesce(override_ns,
                   (extract(epoch FROM clock_timestamp()) * 1000000)::bigint * 1000) $$;

-- One row per lease key. `epoch` is the key's own counter (the token): 1 for its first holder,
-- + 1 with every take; never a sequence or a database-wide revision.
CREATE TABLE fencesim_leases (
  tenant_id bytea NOT NULL,
  lease_execution_id bytea NOT NULL,
  epoch bigint NOT NULL CHECK (epoch BETWEEN 1 AND 9007199254740991),
  holder bytea NOT NULL,
  expires_at_ns bigint NOT NULL,
  released boolean NOT NULL,
  PRIMARY KEY (tenant_id, lease_execution_id)
);

CREATE TABLE fencesim_checkpoints (
  tenant_id bytea NOT NULL,
  lease_execution_id bytea NOT NULL,
  tree_completed boolean NOT NULL,
  last_token bigint NOT NULL,
  -- A client's cancel of the tree was recorded (#360). Never set together with tree_completed:
  -- both are set by an upsert of this row whose condition reads the other (the row is locked).
  cancelled boolean NOT NULL DEFAULT false,
  PRIMARY KEY (tenant_id, lease_execution_id)
);

CREATE TABLE fencesim_checkpoint_steps (
  tenant_id bytea NOT NULL,
  lease_execution_id bytea NOT NULL,
  step_path bytea NOT NULL,
  PRIMARY KEY (tenant_id, lease_execution_id, step_path)
);

CREATE TABLE fencesim_placements (
  sequence bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,  -- placement order
  tenant_id bytea NOT NULL,
  lease_execution_id bytea NOT NULL,
  workflow bytea NOT NULL,
  parent_tenant_id bytea,
  parent_lease_execution_id bytea,
  finished boolean NOT NULL,
  UNIQUE (tenant_id, lease_execution_id)
);

-- The token-checking sink: a high-water token per (sink, scope key), and each idempotency key of
-- a scope key applied once.
CREATE TABLE fencesim_sink_high_water (
  sink bytea NOT NULL,
  scope_key bytea NOT NULL,
  high_water bigint NOT NULL,
  PRIMARY KEY (sink, scope_key)
);

CREATE TABLE fencesim_sink_effects (
  sequence bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  sink bytea NOT NULL,
  scope_key bytea NOT NULL,
  idempotency_key bytea NOT NULL,
  token bigint NOT NULL,
  payload bytea NOT NULL,
  UNIQUE (sink, scope_key, idempotency_key)
);
)sql";

}  // namespace fencesim::stores
