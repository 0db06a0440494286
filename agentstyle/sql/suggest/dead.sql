-- Rules that never fired in the last sessions of their harnesses, for `style suggest`
-- (docs/audit.md#suggest). A session counts for a rule when the rule is placed (it runs) at
-- that session's harness; the last $sessions sessions of each harness (by last event) are
-- looked at. Built-in `style/` rules are left out: self-protection is meant to stay quiet.
-- Parameters: $sessions (how many recent sessions per harness).
-- Result: rule, package, local_id, sessions (recent sessions of its harnesses), events (their
-- events), first_ts, last_ts — rules that fired in none of them, in policy order.
WITH recent AS (
    SELECT harness, session_id
    FROM sessions
    QUALIFY row_number() OVER (PARTITION BY harness ORDER BY last_seen DESC, session_id)
            <= $sessions
),
placed AS (
    SELECT DISTINCT en.rule_id, en.harness
    FROM entries en
    JOIN rules r ON r.rule_id = en.rule_id AND r.enabled
    WHERE en.point IS NOT NULL AND en.status IN ('native', 'partial', 'degraded')
      AND r.package <> 'style'
),
seen AS (
    SELECT p.rule_id,
           count(DISTINCT (e.harness, e.session_id)) AS sessions,
           count(*) AS events,
           min(e.ts) AS first_ts,
           max(e.ts) AS last_ts,
           count(h.event_id) AS fired
    FROM placed p
    JOIN recent s ON s.harness = p.harness
    JOIN events e ON e.harness = s.harness AND e.session_id = s.session_id
    LEFT JOIN hits h ON h.event_id = e.event_id AND h.rule_id = p.rule_id
    GROUP BY p.rule_id
)
SELECT s.rule_id AS rule, r.package, r.local_id, s.sessions, s.events, s.first_ts, s.last_ts
FROM seen s
JOIN rules r ON r.rule_id = s.rule_id
WHERE s.fired = 0 AND s.sessions >= $sessions
ORDER BY r.rule_order;
