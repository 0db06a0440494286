-- Audit report `timeline`: one row per day (or hour) from the first to the last event in the
-- window, empty buckets included (so a chart of it has no false joins).
-- Parameters: $bucket ('day' or 'hour'), $since, $until (TIMESTAMP or NULL), $session,
-- $harness (exact or NULL), $rule (GLOB over rule ids or NULL: only events that rule fired on).
-- $first_id, $last_id: the window's event ids (audit/window_ids.sql); hits and field rows are
-- read in that range only, which their zone maps find without a scan of the whole history.
-- Result: bucket (start of the day/hour), events, hits (rule matches), blocks, asks,
-- block_rate, ask_rate (of the bucket's events; NULL for an empty bucket).
WITH hit_counts AS (
    SELECT h.event_id, count(*) AS n
    FROM window_hits($rule, $first_id, $last_id) h
    GROUP BY h.event_id
),
per_bucket AS (
    SELECT date_trunc($bucket, ev.ts) AS bucket,
           count(*) AS events,
           coalesce(sum(hc.n), 0) AS hits,
           count(*) FILTER (WHERE ev.verdict = 'block') AS blocks,
           count(*) FILTER (WHERE ev.verdict = 'ask') AS asks
    FROM report_events($since, $until, $session, $harness, $rule, $first_id, $last_id) ev
    LEFT JOIN hit_counts hc ON hc.event_id = ev.event_id
    GROUP BY 1
),
buckets AS (
    SELECT unnest(range(min(bucket), max(bucket) + step, step)) AS bucket
    FROM per_bucket,
         (SELECT CASE WHEN $bucket = 'hour' THEN INTERVAL 1 HOUR ELSE INTERVAL 1 DAY END AS step)
    GROUP BY step
)
SELECT b.bucket,
       coalesce(p.events, 0) AS events,
       CAST(coalesce(p.hits, 0) AS BIGINT) AS hits,
       coalesce(p.blocks, 0) AS blocks,
       coalesce(p.asks, 0) AS asks,
       round(p.blocks / p.events, 4) AS block_rate,
       round(p.asks / p.events, 4) AS ask_rate
FROM buckets b
LEFT JOIN per_bucket p ON p.bucket = b.bucket
ORDER BY b.bucket;
