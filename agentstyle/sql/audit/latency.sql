-- Latency distribution of the window's answered events, in 1-2-5 buckets of microseconds
-- (… 500 µs, 1 ms, 2 ms, 5 ms, 10 ms …), so every bucket edge reads as a round number:
-- a bucket holds latencies in [low_us, high_us) (the first also holds 0 µs).
-- Parameters: $since, $until (TIMESTAMP or NULL), $session, $harness (exact or NULL),
-- $rule (GLOB over rule ids or NULL: only events that rule fired on).
-- $first_id, $last_id: the window's event ids (audit/window_ids.sql); hits and field rows are
-- read in that range only, which their zone maps find without a scan of the whole history.
-- Result: bucket (its position on the 1-2-5 scale: 3 per decade), low_us, high_us, events —
-- ordered by bucket.
WITH ev AS (
    SELECT greatest(e.latency_us, 1) AS us
    FROM report_events($since, $until, $session, $harness, $rule, $first_id, $last_id) e
    WHERE e.latency_us IS NOT NULL
),
scaled AS (
    -- decade k and the leading step (1, 2 or 5): step × 10^k is the bucket's lower edge; read
    -- off the digits, so an exact power of ten never falls a bucket low through log10 rounding
    SELECT length(CAST(us AS VARCHAR)) - 1 AS k,
           CASE WHEN CAST(left(CAST(us AS VARCHAR), 1) AS INTEGER) >= 5 THEN 5
                WHEN CAST(left(CAST(us AS VARCHAR), 1) AS INTEGER) >= 2 THEN 2
                ELSE 1 END AS step
    FROM ev
)
SELECT 3 * k + CASE step WHEN 1 THEN 0 WHEN 2 THEN 1 ELSE 2 END AS bucket,
       CAST(step * pow(10, k) AS BIGINT) AS low_us,
       CAST(CASE step WHEN 5 THEN 10 WHEN 2 THEN 5 ELSE 2 END * pow(10, k) AS BIGINT) AS high_us,
       count(*) AS events
FROM scaled
GROUP BY ALL
ORDER BY bucket;
