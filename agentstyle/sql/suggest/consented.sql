-- The calls a person let through after a rule stopped them, for `style suggest`
-- (docs/audit.md#suggest): a tool call a rule asked about (`asked` hit, verdict `ask`) whose
-- post event then came (the person approved it: the same call id, or, where the harness gives
-- none, the session's next post event of the same native tool before its next pre event), and
-- every refusal `style allow` answered (one row per rule that refused it). No parameters.
-- Approvals only the harness's transcript shows are read by suggest.py (unseen_asks.sql).
-- asked_calls, post_event_came, event_field: suggest/asked_macros.sql.
-- Result: how (approved | allowed), seen (post event | style allow), event_id, ts, harness,
-- session_id, rule_id, tool, native_tool, command (tool.input.command), path (file.path), input (tool.input as stored)
-- — by rule, then event.
WITH approved AS (
    SELECT 'approved' AS how, 'post event' AS seen, a.event_id, a.ts, a.harness, a.session_id,
           a.rule_id, a.tool, a.native_tool
    FROM asked_calls() a
    WHERE post_event_came(a.harness, a.session_id, a.event_id, a.native_tool, a.call_id)
),
allowed AS (
    SELECT DISTINCT 'allowed' AS how, 'style allow' AS seen, e.event_id, e.ts, e.harness, e.session_id, r.rule_id,
           e.tool, e.native_tool
    FROM allowances al
    JOIN events e ON e.event_id = al.event_id
    CROSS JOIN unnest(al.rule_ids) AS r(rule_id)
),
both_kinds AS (
    SELECT * FROM approved
    UNION ALL
    SELECT * FROM allowed WHERE NOT EXISTS (
        SELECT 1 FROM approved ap
        WHERE ap.event_id = allowed.event_id AND ap.rule_id = allowed.rule_id)
)
SELECT b.how, b.seen, b.event_id, b.ts, b.harness, b.session_id, b.rule_id, b.tool, b.native_tool,
       event_field(b.event_id, 'tool.input.command') AS command,
       event_field(b.event_id, 'file.path') AS path,
       event_field(b.event_id, 'tool.input') AS input
FROM both_kinds b
ORDER BY b.rule_id, b.event_id;
