-- book.sql for a batch of one event (a hook's), its fields as plain parameters: no lists to
-- unnest, a plan half the size. The same bookkeeping, expression for expression (book.sql's
-- `resets` is spelled out twice: a lateral column for it costs more than it saves).
-- Parameters: $1 harness, $2 session_id, $3 point, $4 session source, $5 model.
-- Result: one row of event_id, generation, compaction, prompt_count, model, is_new.
SELECT (SELECT coalesce(max(event_id), 0) FROM events) + 1 AS event_id,
       coalesce(s.generation, 0)
           + CAST($3 = 'session.start' AND $4 IN ('startup', 'clear') AND s.session_id IS NOT NULL
               AS INTEGER) AS generation,
       CASE WHEN $3 = 'session.start' AND $4 IN ('startup', 'clear')
                 AND s.session_id IS NOT NULL THEN 0
            ELSE coalesce(s.compaction, 0)
                 + CAST($3 = 'session.start' AND $4 = 'compact' AS INTEGER) END AS compaction,
       coalesce(s.prompt_count, 0) + CAST($3 = 'prompt.submitted' AS INTEGER) AS prompt_count,
       coalesce($5, s.model) AS model,
       s.generation IS NULL AS is_new
FROM (SELECT 1) one
LEFT JOIN sessions s ON s.harness = $1 AND s.session_id = $2;
