-- The fenced write under SERIALIZABLE: plain reads, and the database refuses any interleaving
-- that no serial order could give. Parameters: $1 scope key, $2 token, $3 idempotency key,
-- $4 payload.
--
--   loop:
--     BEGIN ISOLATION LEVEL SERIALIZABLE;
--     read_mark -> mark (no row: 0)
--     if mark > $2: ROLLBACK; refused
--     upsert_mark; insert_effect -> a row: applied, no row: deduplicated
--     COMMIT;
--     on SQLSTATE 40001 (serialization_failure) or 40P01 (deadlock): ROLLBACK and run the whole
--     transaction again, from read_mark: the mark it read may be stale now.
--
-- A retry is safe because nothing of a failed attempt committed, and the idempotency key is the
-- step's, the same in every attempt.
-- name: read_mark
SELECT token FROM fence_high_water WHERE scope_key = $1::text;
-- name: upsert_mark
INSERT INTO fence_high_water (scope_key, token) VALUES ($1::text, $2::bigint)
ON CONFLICT (scope_key) DO UPDATE SET token = excluded.token;
-- name: insert_effect
INSERT INTO fence_effects (scope_key, idempotency_key, token, payload)
VALUES ($1::text, $3::text, $2::bigint, $4::text)
ON CONFLICT (scope_key, idempotency_key) DO NOTHING RETURNING effect_id;
