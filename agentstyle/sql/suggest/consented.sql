-- The calls a person let through after a rule stopped them, for `style suggest`
-- (docs/audit.md#suggest): a tool call a rule asked about (`asked` hit, verdict `ask`) whose
-- post event then came (the person approved it: the same call id, or, where the harness gives
-- none, the session's next post event of the same native tool before its next pre event), and
-- every refusal `style allow` answered (one row per rule that refused it). No parameters.
-- Approvals only the harness's transcript shows are read by suggest.py (unseen_asks.sql).
-- Result: how (approved | allowed), seen (post event | style allow), event_id, ts, harness,
-- session_id, rule_id, tool, native_tool, command (tool.input.command), path (file.path), input (tool.input as stored)
-- — by rule, then event.
WITH asked AS (
    SELECT e.event_id, e.ts, e.harness, e.session_id, e.tool, e.native_tool, e.call_id,
           h.rule_id
    FROM events e
    JOIN hits h ON h.event_id = e.event_id AND h.outcome = 'asked'
    WHERE e.verdict = 'ask' AND e.point = 'tool.pre'
),
approved AS (
    SELECT 'approved' AS how, 'post event' AS seen, a.event_id, a.ts, a.harness, a.session_id,
           a.rule_id, a.tool, a.native_tool
    FROM asked a
    WHERE EXISTS (
        SELECT 1 FROM events p
        WHERE p.harness = a.harness AND p.session_id = a.session_id
          AND p.point = 'tool.post' AND p.event_id > a.event_id
          AND p.native_tool IS NOT DISTINCT FROM a.native_tool
          AND CASE
              WHEN a.call_id IS NOT NULL THEN p.call_id = a.call_id
              ELSE p.call_id IS NULL AND NOT EXISTS (
                  SELECT 1 FROM events q
                  WHERE q.harness = a.harness AND q.session_id = a.session_id
                    AND q.point = 'tool.pre' AND q.event_id > a.event_id
                    AND q.event_id < p.event_id)
          END)
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
       (SELECT min(f.value) FROM event_fields f
         WHERE f.event_id = b.event_id AND f.field = 'tool.input.command') AS command,
       (SELECT min(f.value) FROM event_fields f
         WHERE f.event_id = b.event_id AND f.field = 'file.path') AS path,
       (SELECT min(f.value) FROM event_fields f
         WHERE f.event_id = b.event_id AND f.field = 'tool.input') AS input
FROM both_kinds b
ORDER BY b.rule_id, b.event_id;
