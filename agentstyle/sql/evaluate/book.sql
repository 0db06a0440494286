-- Session bookkeeping (docs/design/runtime.md#session-bookkeeping) for a batch in which no session
-- has two events (a hook's event, explain, a `style test` case): each event's state follows from
-- its session's stored row alone. startup and clear open a new generation (not for a brand-new
-- session), compact adds a round, a prompt adds to the prompt count; the model is remembered from
-- the session's start. Event ids are the next of the counter (schema 010), in seq order.
-- book_batch.sql gives the same answer for any batch.
-- A session start of unknown source (an exported event whose fields were not kept) neither
-- resets nor compacts.
-- Parameters: lists of $seq, $harness, $session_id, $point, $source (the session's),
-- $model. Result: seq, event_id, generation, compaction, prompt_count, model, is_new (no
-- stored row for the session yet) — in seq order.
WITH ids AS (
    -- the batch's ids: the counter (schema 010) advanced by the batch's size; the events get
    -- them in seq order, the last one being the counter's new value
    UPDATE event_counter SET last_id = last_id + len($seq) RETURNING last_id
),
b AS (
    SELECT unnest($seq) AS seq, unnest($harness) AS harness, unnest($session_id) AS session_id,
           unnest($point) AS point, unnest($source) AS source, unnest($model) AS model
),
flagged AS (
    SELECT b.*, s.generation AS g0, s.compaction AS c0, s.prompt_count AS p0, s.model AS m0,
           b.point = 'session.start' AND coalesce(b.source, '') IN ('startup', 'clear')
               AND s.session_id IS NOT NULL AS resets
    FROM b
    LEFT JOIN sessions s ON s.harness = b.harness AND s.session_id = b.session_id
)
SELECT x.seq, ids.last_id - len($seq) + x.seq + 1 AS event_id,
       coalesce(x.g0, 0) + CAST(x.resets AS INTEGER) AS generation,
       CASE WHEN x.resets THEN 0
            ELSE coalesce(x.c0, 0)
                 + CAST(x.point = 'session.start' AND coalesce(x.source, '') = 'compact'
                        AS INTEGER) END
           AS compaction,
       coalesce(x.p0, 0) + CAST(x.point = 'prompt.submitted' AS INTEGER) AS prompt_count,
       coalesce(x.model, x.m0) AS model,
       x.g0 IS NULL AS is_new
FROM flagged x, ids
ORDER BY x.seq;
