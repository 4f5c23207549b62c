-- The external system's side of ADR-0023's exactly-once write (docs/reference-sql.md).
-- A high-water token per scope key, and each idempotency key of a scope key applied once.

-- The highest token that any write of the scope key was accepted with. Keyed by the scope key
-- (never by tenant or by sink): AnyInstance children hold leases of their own, with epochs of
-- their own, and a shared mark would refuse the healthy ones.
CREATE TABLE fence_high_water (
  scope_key text PRIMARY KEY,
  token bigint NOT NULL CHECK (token BETWEEN 0 AND 9007199254740991)
);

-- The effects, each applied once per (scope key, idempotency key). effect_id is drawn while the
-- write holds its scope key's fence_high_water row (every variant below locks or updates it
-- before inserting), so per scope key it is the order in which effects committed.
CREATE TABLE fence_effects (
  effect_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  scope_key text NOT NULL,
  idempotency_key text NOT NULL,
  token bigint NOT NULL,
  payload text NOT NULL,
  UNIQUE (scope_key, idempotency_key)
);
