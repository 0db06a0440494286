-- Audit report `tools`: one row per normalized tool called in the window. A call is one
-- tool_use id (its pre, permission, post and failure events), or one event when it has none.
-- Parameters: $since, $until (TIMESTAMP or NULL), $session, $harness (exact or NULL),
-- $rule (GLOB over rule ids or NULL: only events that rule fired on, and only its blocks).
-- $first_id, $last_id: the window's event ids (audit/window_ids.sql); hits and field rows are
-- read in that range only, which their zone maps find without a scan of the whole history.
-- Result: tool, calls, blocked (calls refused at tool.pre), asked, failed, block_rate,
-- top_blocking_rule (most blocked calls; ties by id), ordered by calls desc, tool.
WITH ev AS (
    SELECT e.*, coalesce(e.call_id, 'event-' || CAST(e.event_id AS VARCHAR)) AS call_key
    FROM report_events($since, $until, $session, $harness, $rule, $first_id, $last_id) e
    WHERE e.tool IS NOT NULL
      AND e.point IN ('tool.pre', 'tool.post', 'tool.failed')
),
calls AS (
    SELECT tool, harness, session_id, call_key,
           bool_or(point = 'tool.pre' AND verdict = 'block') AS blocked,
           bool_or(point = 'tool.pre' AND verdict = 'ask') AS asked,
           bool_or(failed OR point = 'tool.failed') AS failed
    FROM ev
    GROUP BY tool, harness, session_id, call_key
),
per_tool AS (
    SELECT tool,
           count(*) AS calls,
           count(*) FILTER (WHERE blocked) AS blocked,
           count(*) FILTER (WHERE asked) AS asked,
           count(*) FILTER (WHERE failed) AS failed
    FROM calls
    GROUP BY tool
),
blockers AS (
    SELECT ev.tool, h.rule_id,
           count(DISTINCT (ev.harness, ev.session_id, ev.call_key)) AS n
    FROM window_hits($rule, $first_id, $last_id) h
    JOIN ev ON ev.event_id = h.event_id
    WHERE h.outcome = 'blocked'
    GROUP BY ev.tool, h.rule_id
),
top_blocker AS (
    SELECT tool, rule_id
    FROM blockers
    QUALIFY row_number() OVER (PARTITION BY tool ORDER BY n DESC, rule_id) = 1
)
SELECT p.tool,
       p.calls,
       p.blocked,
       p.asked,
       p.failed,
       round(p.blocked / p.calls, 4) AS block_rate,
       t.rule_id AS top_blocking_rule
FROM per_tool p
LEFT JOIN top_blocker t ON t.tool = p.tool
ORDER BY p.calls DESC, p.tool;
