-- The calls a rule asked about whose approval no post event shows (docs/audit.md#suggest): the
-- harness's transcript, which the event named, may still show how the person answered. The
-- same asked calls as consented.sql, but those it counts approved. No parameters.
-- Result: event_id, ts, harness, session_id, rule_id, tool, native_tool, call_id, transcript,
-- command (tool.input.command), path (file.path), input (tool.input as stored) — by rule,
-- then event.
WITH asked AS (
    SELECT e.event_id, e.ts, e.harness, e.session_id, e.tool, e.native_tool, e.call_id,
           e.transcript, h.rule_id
    FROM events e
    JOIN hits h ON h.event_id = e.event_id AND h.outcome = 'asked'
    WHERE e.verdict = 'ask' AND e.point = 'tool.pre'
)
SELECT a.event_id, a.ts, a.harness, a.session_id, a.rule_id, a.tool, a.native_tool, a.call_id,
       a.transcript,
       (SELECT min(f.value) FROM event_fields f
         WHERE f.event_id = a.event_id AND f.field = 'tool.input.command') AS command,
       (SELECT min(f.value) FROM event_fields f
         WHERE f.event_id = a.event_id AND f.field = 'file.path') AS path,
       (SELECT min(f.value) FROM event_fields f
         WHERE f.event_id = a.event_id AND f.field = 'tool.input') AS input
FROM asked a
WHERE NOT EXISTS (
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
ORDER BY a.rule_id, a.event_id;
