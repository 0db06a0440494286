-- Audit report `sessions`: one row per (harness, session) with events in the window.
-- Parameters: $since, $until (TIMESTAMP or NULL), $session, $harness (exact or NULL),
-- $rule (GLOB over rule ids or NULL: only events that rule fired on, and only its hits).
-- $first_id, $last_id: the window's event ids (audit/window_ids.sql); hits and field rows are
-- read in that range only, which their zone maps find without a scan of the whole history.
-- Result: harness, session, model, events, prompts, hits (rule matches), blocks, first_seen,
-- last_seen (of the session's events in the window), ordered by first_seen, session.
WITH hit_counts AS (
    SELECT h.event_id, count(*) AS n
    FROM window_hits($rule, $first_id, $last_id) h
    GROUP BY h.event_id
)
SELECT ev.harness,
       ev.session_id AS session,
       any_value(s.model) AS model,
       count(*) AS events,
       count(*) FILTER (WHERE ev.point = 'prompt.submitted') AS prompts,
       CAST(coalesce(sum(hc.n), 0) AS BIGINT) AS hits,
       count(*) FILTER (WHERE ev.verdict = 'block') AS blocks,
       min(ev.ts) AS first_seen,
       max(ev.ts) AS last_seen
FROM report_events($since, $until, $session, $harness, $rule, $first_id, $last_id) ev
LEFT JOIN hit_counts hc ON hc.event_id = ev.event_id
LEFT JOIN sessions s ON s.harness = ev.harness AND s.session_id = ev.session_id
GROUP BY ev.harness, ev.session_id
ORDER BY first_seen, session;
