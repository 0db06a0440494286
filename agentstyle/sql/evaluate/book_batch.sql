-- Session bookkeeping (docs/design/runtime.md#session-bookkeeping) for any batch, several events of
-- a session among them (replay): window functions over the batch in arrival order on top of each
-- session's stored row. startup and clear open a new generation (except the first event of a
-- brand-new session), compact adds a round (counted from the last new generation), a prompt adds to
-- the prompt count; the model is remembered from the session's start. Event ids are the next of
-- the counter (schema 010), in seq order. For a batch without repeated sessions book.sql is the
-- same, cheaper.
-- A session start of unknown source (an exported event whose fields were not kept) neither
-- resets nor compacts.
-- Parameters and result as book.sql.
WITH ids AS (
    -- the batch's ids: the counter (schema 010) advanced by the batch's size; the events get
    -- them in seq order, the last one being the counter's new value
    UPDATE event_counter SET last_id = last_id + len($seq) RETURNING last_id
),
b AS (
    SELECT unnest($seq) AS seq, unnest($harness) AS harness, unnest($session_id) AS session_id,
           unnest($point) AS point, unnest($source) AS source, unnest($model) AS model
),
flags AS (
    SELECT b.*, s.generation AS g0, s.compaction AS c0, s.prompt_count AS p0, s.model AS m0,
           CAST(b.point = 'session.start' AND coalesce(b.source, '') IN ('startup', 'clear')
                AND NOT (s.session_id IS NULL AND row_number() OVER w = 1) AS INTEGER) AS resets,
           CAST(b.point = 'session.start' AND coalesce(b.source, '') = 'compact' AS INTEGER)
               AS compacts,
           CAST(b.point = 'prompt.submitted' AS INTEGER) AS prompts
    FROM b
    LEFT JOIN sessions s ON s.harness = b.harness AND s.session_id = b.session_id
    WINDOW w AS (PARTITION BY b.harness, b.session_id ORDER BY b.seq)
),
running AS (
    SELECT *,
           sum(resets) OVER w AS era,
           sum(prompts) OVER w AS n_prompts,
           last_value(model IGNORE NULLS) OVER w AS last_model
    FROM flags
    WINDOW w AS (PARTITION BY harness, session_id ORDER BY seq
                 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
booked AS (
    SELECT *,
           -- compactions since the era began: the stored round while no reset happened yet
           CASE WHEN era = 0 THEN coalesce(c0, 0) ELSE 0 END
               + sum(compacts) OVER (PARTITION BY harness, session_id, era ORDER BY seq
                                     ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
               AS compaction
    FROM running
)
SELECT x.seq, ids.last_id - len($seq) + x.seq + 1 AS event_id,
       coalesce(x.g0, 0) + x.era AS generation, x.compaction,
       coalesce(x.p0, 0) + x.n_prompts AS prompt_count,
       coalesce(x.last_model, x.m0) AS model,
       x.g0 IS NULL AS is_new
FROM booked x, ids
ORDER BY x.seq;
