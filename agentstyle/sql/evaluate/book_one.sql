-- book.sql for a batch of one event (a hook's), its fields as plain parameters: no lists to
-- unnest, a plan half the size. The same bookkeeping, expression for expression (book.sql's
-- `resets` is spelled out twice: a lateral column for it costs more than it saves).
-- The event id is taken from the counter (schema 010), advanced in this statement.
-- A session start of unknown source (an exported event whose fields were not kept) neither
-- resets nor compacts.
-- Parameters: $harness, $session_id, $point, $source (the session's), $model.
-- Result: one row of book.sql's columns: seq (0), event_id, generation, compaction, prompt_count,
-- model, is_new.
WITH ids AS (UPDATE event_counter SET last_id = last_id + 1 RETURNING last_id)
SELECT 0 AS seq, ids.last_id AS event_id,
       coalesce(s.generation, 0)
           + CAST($point = 'session.start' AND coalesce($source, '') IN ('startup', 'clear')
                  AND s.session_id IS NOT NULL AS INTEGER) AS generation,
       CASE WHEN $point = 'session.start' AND coalesce($source, '') IN ('startup', 'clear')
                 AND s.session_id IS NOT NULL THEN 0
            ELSE coalesce(s.compaction, 0)
                 + CAST($point = 'session.start' AND coalesce($source, '') = 'compact' AS INTEGER)
       END AS compaction,
       coalesce(s.prompt_count, 0) + CAST($point = 'prompt.submitted' AS INTEGER) AS prompt_count,
       coalesce($model, s.model) AS model,
       s.generation IS NULL AS is_new
FROM ids
LEFT JOIN sessions s ON s.harness = $harness AND s.session_id = $session_id;
