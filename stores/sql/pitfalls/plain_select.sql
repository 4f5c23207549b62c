-- PITFALL (kept as a negative test: the race test must fail on it). One transaction, but under
-- READ COMMITTED the check is a plain SELECT without a lock:
--
--   BEGIN ISOLATION LEVEL READ COMMITTED;
--   read_mark -> mark; if mark > $2: ROLLBACK; refused
--   upsert_mark; insert_effect; COMMIT;
--
-- READ COMMITTED lets a higher token's write commit after our SELECT; nothing re-checks it.
-- name: read_mark
SELECT token FROM fence_high_water WHERE scope_key = $1::text;
-- name: upsert_mark
INSERT INTO fence_high_water (scope_key, token) VALUES ($1::text, $2::bigint)
ON CONFLICT (scope_key) DO UPDATE SET token = excluded.token;
-- name: insert_effect
INSERT INTO fence_effects (scope_key, idempotency_key, token, payload)
VALUES ($1::text, $3::text, $2::bigint, $4::text)
ON CONFLICT (scope_key, idempotency_key) DO NOTHING RETURNING effect_id;
