-- The settings files that changed during a session of the window (`config.changed` events:
-- Claude Code's ConfigChange), per harness and file. A file self-protection guards
-- (`config.guarded`: it holds STYLE's hooks) is tamper evidence, which `style audit` lists
-- under needs attention (docs/audit.md#needs-attention).
-- Parameters: $since, $until (TIMESTAMP or NULL), $session, $harness (exact or NULL).
-- $first_id, $last_id: the window's event ids (audit/window_ids.sql); field rows are read in
-- that range only.
-- Result: harness, file, guarded, changes, kept_out (the changes STYLE kept out of the
-- session), sessions, last_seen — guarded files first, then the most changes first.
WITH changed AS (
    SELECT e.event_id, e.harness, e.session_id, e.ts, e.verdict
    FROM window_events($since, $until, $session, $harness) e
    WHERE e.point = 'config.changed'
),
named AS (
    SELECT f.event_id,
           max(f.value) FILTER (WHERE f.field = 'config.file') AS file,
           bool_or(f.field = 'config.guarded') AS guarded
    FROM event_fields f
    WHERE f.event_id BETWEEN $first_id AND $last_id
      AND f.field IN ('config.file', 'config.guarded')
    GROUP BY f.event_id
)
SELECT c.harness,
       coalesce(n.file, 'a settings file (not recorded)') AS file,
       coalesce(n.guarded, false) AS guarded,
       count(*) AS changes,
       count(*) FILTER (WHERE c.verdict = 'block') AS kept_out,
       count(DISTINCT c.session_id) AS sessions,
       max(c.ts) AS last_seen
FROM changed c
LEFT JOIN named n ON n.event_id = c.event_id
GROUP BY c.harness, coalesce(n.file, 'a settings file (not recorded)'), coalesce(n.guarded, false)
ORDER BY guarded DESC, changes DESC, file;
