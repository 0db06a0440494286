-- Audit report `coverage`: the sessions STYLE recorded in the window, to find their transcripts.
-- Parameters: $since, $until (TIMESTAMP or NULL), $session, $harness (exact or NULL).
-- Result: harness, session, cwd (the session's most frequent folder), events, first_seen,
-- last_seen, ordered by first_seen.
SELECT e.harness,
       e.session_id AS session,
       mode(e.cwd) AS cwd,
       count(*) AS events,
       min(e.ts) AS first_seen,
       max(e.ts) AS last_seen
FROM window_events($since, $until, $session, $harness) e
WHERE e.session_id IS NOT NULL
GROUP BY e.harness, e.session_id
ORDER BY first_seen, session;
