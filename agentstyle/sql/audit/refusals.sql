-- Audit report `refusals`: the tool calls refused in the window, and by whom: STYLE (a rule
-- that blocked the call at tool.pre) or the client itself (`tool.denied`: Claude Code's
-- PermissionDenied, a call its auto mode's classifier refused; docs/audit.md#the-clients-own-refusals).
-- One row per who × harness × tool × why.
-- Parameters: $since, $until (TIMESTAMP or NULL), $session, $harness (exact or NULL),
-- $rule (GLOB over rule ids or NULL: only that rule's refusals, and none of the client's).
-- $first_id, $last_id: the window's event ids (audit/window_ids.sql); hits and field rows are
-- read in that range only, which their zone maps find without a scan of the whole history.
-- Result: refused_by (`style` or `client`), harness, tool, native_tool, why (STYLE's rule, or
-- the client's reason), refusals, sessions, first_seen, last_seen — STYLE's first, then the
-- most refusals first.
WITH by_style AS (
    SELECT 'style' AS refused_by, e.harness, e.tool, e.native_tool, h.rule_id AS why,
           e.session_id, e.ts
    FROM window_events($since, $until, $session, $harness) e
    JOIN window_hits($rule, $first_id, $last_id) h ON h.event_id = e.event_id
    WHERE e.point = 'tool.pre'
      AND e.verdict = 'block'
      AND h.outcome = 'blocked'
),
by_client AS (
    SELECT 'client' AS refused_by, e.harness, e.tool, e.native_tool,
           coalesce(f.value, 'no reason recorded') AS why, e.session_id, e.ts
    FROM window_events($since, $until, $session, $harness) e
    LEFT JOIN event_fields f
           ON f.event_id = e.event_id
          AND f.field = 'denied.reason'
          AND f.event_id BETWEEN $first_id AND $last_id
    WHERE e.point = 'tool.denied'
      AND $rule IS NULL
),
refused AS (
    SELECT * FROM by_style
    UNION ALL
    SELECT * FROM by_client
)
SELECT refused_by,
       harness,
       tool,
       native_tool,
       why,
       count(*) AS refusals,
       count(DISTINCT session_id) AS sessions,
       min(ts) AS first_seen,
       max(ts) AS last_seen
FROM refused
GROUP BY refused_by, harness, tool, native_tool, why
ORDER BY refused_by DESC, refusals DESC, harness, tool, why;
