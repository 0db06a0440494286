-- Audit report `summary`: one row per harness × point of the events in the window.
-- Parameters: $since, $until (TIMESTAMP or NULL; since inclusive, until exclusive), $session,
-- $harness (exact or NULL), $rule (GLOB over rule ids or NULL: only events that rule fired on).
-- $first_id, $last_id: the window's event ids (audit/window_ids.sql); hits and field rows are
-- read in that range only, which their zone maps find without a scan of the whole history.
-- Result: harness, point, events, events_hit, blocked, asked, block_rate, errors,
-- latency_p50_ms, latency_p95_ms — ordered by harness, point.
WITH hit_events AS (
    SELECT DISTINCT h.event_id
    FROM window_hits($rule, $first_id, $last_id) h
)
SELECT ev.harness,
       ev.point,
       count(*) AS events,
       count(he.event_id) AS events_hit,
       count(*) FILTER (WHERE ev.verdict = 'block') AS blocked,
       count(*) FILTER (WHERE ev.verdict = 'ask') AS asked,
       round(count(*) FILTER (WHERE ev.verdict = 'block') / count(*), 4) AS block_rate,
       count(*) FILTER (WHERE ev.error IS NOT NULL) AS errors,
       round(quantile_cont(ev.latency_us, 0.5) / 1000.0, 3) AS latency_p50_ms,
       round(quantile_cont(ev.latency_us, 0.95) / 1000.0, 3) AS latency_p95_ms
FROM report_events($since, $until, $session, $harness, $rule, $first_id, $last_id) ev
LEFT JOIN hit_events he ON he.event_id = ev.event_id
GROUP BY ev.harness, ev.point
ORDER BY ev.harness, ev.point NULLS LAST;
