-- Latency distribution of the window's answered events, in power-of-two microsecond buckets:
-- bucket k holds latencies in [2^k, 2^(k+1)) µs (k = 0 also holds 0 µs).
-- Parameters: $since, $until (TIMESTAMP or NULL), $session, $harness (exact or NULL),
-- $rule (GLOB over rule ids or NULL: only events that rule fired on).
-- Result: bucket (k), low_us, high_us, events — ordered by bucket.
WITH ev AS (
    SELECT e.*
    FROM events e
    WHERE e.latency_us IS NOT NULL
      AND ($since IS NULL OR e.ts >= $since)
      AND ($until IS NULL OR e.ts < $until)
      AND ($session IS NULL OR e.session_id = $session)
      AND ($harness IS NULL OR e.harness = $harness)
      AND ($rule IS NULL OR EXISTS (
          SELECT 1 FROM hits h WHERE h.event_id = e.event_id AND h.rule_id GLOB $rule))
)
SELECT CAST(floor(log2(greatest(latency_us, 1))) AS INTEGER) AS bucket,
       CAST(pow(2, floor(log2(greatest(latency_us, 1)))) AS BIGINT) AS low_us,
       CAST(pow(2, floor(log2(greatest(latency_us, 1))) + 1) AS BIGINT) AS high_us,
       count(*) AS events
FROM ev
GROUP BY ALL
ORDER BY bucket;
