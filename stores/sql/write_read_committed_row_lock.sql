-- The fenced write under READ COMMITTED with an explicit row lock: the same guarantee as
-- write_read_committed.sql, as steps a client can see (and stores/postgres/postgres_sink.cpp's
-- shape). Parameters: $1 scope key, $2 token, $3 idempotency key, $4 payload.
--
--   BEGIN ISOLATION LEVEL READ COMMITTED;
--   ensure_mark; lock_mark -> mark
--   if mark > $2: ROLLBACK; refused
--   raise_mark; insert_effect -> a row: applied, no row: deduplicated
--   COMMIT;
--
-- The lock is held from the check to the commit: no other write of the scope key can commit in
-- between. Without FOR UPDATE this is pitfall_plain_select.sql.
-- name: ensure_mark
INSERT INTO fence_high_water (scope_key, token) VALUES ($1::text, 0) ON CONFLICT DO NOTHING;
-- name: lock_mark
SELECT token FROM fence_high_water WHERE scope_key = $1::text FOR UPDATE;
-- name: raise_mark
UPDATE fence_high_water SET token = $2::bigint WHERE scope_key = $1::text;
-- name: insert_effect
INSERT INTO fence_effects (scope_key, idempotency_key, token, payload)
VALUES ($1::text, $3::text, $2::bigint, $4::text)
ON CONFLICT (scope_key, idempotency_key) DO NOTHING RETURNING effect_id;
