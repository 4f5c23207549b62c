-- PITFALL (kept as a negative test: the race test must fail on it). The conditional upsert of
-- write_read_committed.sql with `<` for `<=`: a write whose token EQUALS the mark is refused, so
-- the current holder's second step is refused as if it were stale. Same parameters and outcome.
-- name: write
WITH mark AS (
  INSERT INTO fence_high_water AS h (scope_key, token) VALUES ($1::text, $2::bigint)
  ON CONFLICT (scope_key) DO UPDATE SET token = excluded.token
    WHERE h.token < excluded.token
  RETURNING h.token
), effect AS (
  INSERT INTO fence_effects (scope_key, idempotency_key, token, payload)
  SELECT $1::text, $3::text, $2::bigint, $4::text FROM mark
  ON CONFLICT (scope_key, idempotency_key) DO NOTHING
  RETURNING effect_id
)
SELECT CASE WHEN NOT EXISTS (SELECT FROM mark) THEN 'refused'
            WHEN EXISTS (SELECT FROM effect) THEN 'applied'
            ELSE 'deduplicated' END AS outcome;
