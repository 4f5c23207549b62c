-- PITFALL (kept as a negative test: the race test must fail on it). The token is checked in one
-- transaction and the write made in another:
--
--   BEGIN; read_mark -> mark; COMMIT;   if mark > $2: refused
--   BEGIN; upsert_mark; insert_effect; COMMIT;
--
-- Between the two, a higher token's write commits; the stale write lands after it.
-- name: read_mark
SELECT token FROM fence_high_water WHERE scope_key = $1::text;
-- name: upsert_mark
INSERT INTO fence_high_water (scope_key, token) VALUES ($1::text, $2::bigint)
ON CONFLICT (scope_key) DO UPDATE SET token = excluded.token;
-- name: insert_effect
INSERT INTO fence_effects (scope_key, idempotency_key, token, payload)
VALUES ($1::text, $3::text, $2::bigint, $4::text)
ON CONFLICT (scope_key, idempotency_key) DO NOTHING RETURNING effect_id;
