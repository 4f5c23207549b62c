-- The fenced write under READ COMMITTED, as ONE statement: a conditional upsert of the mark.
-- Parameters: $1 scope key, $2 token, $3 idempotency key (per step, never per attempt), $4 payload.
-- Returns one row: 'applied', 'deduplicated' or 'refused'.
--
-- Why it is atomic: ON CONFLICT DO UPDATE locks the scope key's mark row and judges its WHERE
-- against the newest committed version (READ COMMITTED re-checks after a lock wait), and the
-- effect is inserted only FROM the row that upsert returned. A lower token that waited behind a
-- higher one finds the higher mark, returns no row, and inserts nothing. An equal token passes
-- (<=): the current holder writes many steps with one token.
-- name: write
WITH mark AS (
  INSERT INTO fence_high_water AS h (scope_key, token) VALUES ($1::text, $2::bigint)
  ON CONFLICT (scope_key) DO UPDATE SET token = excluded.token
    WHERE h.token <= excluded.token
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
