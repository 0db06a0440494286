-- The window a report covers, as the HTML header states it: the first and last event, how many,
-- and the latency quantiles the latency chart marks.
-- Parameters: $since, $until (TIMESTAMP or NULL), $session, $harness (exact or NULL),
-- $rule (GLOB over rule ids or NULL: only events that rule fired on).
-- $first_id, $last_id: the window's event ids (audit/window_ids.sql); hits and field rows are
-- read in that range only, which their zone maps find without a scan of the whole history.
-- Result: one row: first_ts, last_ts, events, latency_p50_us, latency_p95_us.
SELECT min(e.ts) AS first_ts,
       max(e.ts) AS last_ts,
       count(*) AS events,
       quantile_cont(e.latency_us, 0.5) AS latency_p50_us,
       quantile_cont(e.latency_us, 0.95) AS latency_p95_us
FROM report_events($since, $until, $session, $harness, $rule, $first_id, $last_id) e;
