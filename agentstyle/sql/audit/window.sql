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
FROM events e
WHERE ($since IS NULL OR e.ts >= $since)
  AND ($until IS NULL OR e.ts < $until)
  AND ($session IS NULL OR e.session_id = $session)
  AND ($harness IS NULL OR e.harness = $harness)
  AND ($rule IS NULL OR EXISTS (
      SELECT 1 FROM hits h
          WHERE h.event_id = e.event_id AND h.rule_id GLOB $rule
            AND h.event_id BETWEEN $first_id AND $last_id));
