-- Session bookkeeping for the whole batch at once (runtime.md step 3), as window functions
-- over the batch in arrival order on top of each session's stored row: startup and clear open
-- a new generation (except the first event of a brand-new session), compact adds a round, a
-- prompt adds to the prompt count; the model is remembered from the session's start. Event
-- ids follow the history's last one (every writer holds the OS lock). No parameters.
UPDATE batch_events AS b
SET event_id = x.event_id,
    generation = x.generation,
    compaction = x.compaction,
    prompt_count = x.prompt_count,
    model = x.model,
    turn_key = coalesce(b.turn_id, 'prompt-' || CAST(x.prompt_count AS VARCHAR))
FROM (
    WITH base AS (
        SELECT e.seq, e.harness, e.session_id, e.point, e.session_source, e.model,
               s.generation AS g0, s.compaction AS c0, s.prompt_count AS p0, s.model AS m0,
               s.session_id IS NULL AS is_new,
               row_number() OVER (PARTITION BY e.harness, e.session_id ORDER BY e.seq) AS nth
        FROM batch_events e
        LEFT JOIN sessions s ON s.harness = e.harness AND s.session_id = e.session_id
    ),
    flags AS (
        SELECT *,
               CAST(point = 'session.start' AND session_source IN ('startup', 'clear')
                    AND NOT (is_new AND nth = 1) AS INTEGER) AS resets,
               CAST(point = 'session.start' AND session_source = 'compact' AS INTEGER)
                   AS compacts,
               CAST(point = 'prompt.submitted' AS INTEGER) AS prompts
        FROM base
    ),
    running AS (
        SELECT *,
               sum(resets) OVER w AS n_resets,
               sum(compacts) OVER w AS n_compacts,
               sum(prompts) OVER w AS n_prompts,
               last_value(model IGNORE NULLS) OVER w AS last_model
        FROM flags
        WINDOW w AS (PARTITION BY harness, session_id ORDER BY seq
                     ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
    ),
    at_reset AS (
        SELECT *,
               max(CASE WHEN resets = 1 THEN n_compacts END) OVER (
                   PARTITION BY harness, session_id ORDER BY seq
                   ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS compacts_at_reset
        FROM running
    )
    SELECT seq,
           (SELECT coalesce(max(event_id), 0) FROM events) + seq + 1 AS event_id,
           coalesce(g0, 0) + n_resets AS generation,
           CASE WHEN compacts_at_reset IS NULL THEN coalesce(c0, 0) + n_compacts
                ELSE n_compacts - compacts_at_reset END AS compaction,
           coalesce(p0, 0) + n_prompts AS prompt_count,
           coalesce(last_model, m0) AS model
    FROM at_reset
) AS x
WHERE b.seq = x.seq;
