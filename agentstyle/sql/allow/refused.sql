-- Recent events STYLE refused or asked about, newest first, with what `style allow` needs.
-- Parameters: $event_id, an event id, or NULL for the most recent ones.
-- Result: event_id, ts, harness, native_event, point, session_id, native_tool, verdict,
-- call_key, rules (those that blocked or asked), command, path, said (a refused prompt's text
-- or the last message of a refused stop).
SELECT e.event_id, e.ts, e.harness, e.native_event, e.point, e.session_id, e.native_tool,
       e.verdict,
       (SELECT min(f.value) FROM event_fields f
         WHERE f.event_id = e.event_id AND f.field = 'style.call_key') AS call_key,
       (SELECT list(h.rule_id ORDER BY h.rule_id) FROM hits h
         WHERE h.event_id = e.event_id AND h.outcome IN ('blocked', 'asked')) AS rules,
       (SELECT min(f.value) FROM event_fields f
         WHERE f.event_id = e.event_id AND f.field = 'tool.input.command') AS command,
       (SELECT min(f.value) FROM event_fields f
         WHERE f.event_id = e.event_id AND f.field = 'file.path') AS path,
       (SELECT min(f.value) FROM event_fields f
         WHERE f.event_id = e.event_id AND f.field IN ('prompt', 'response.text')) AS said
FROM events e
WHERE e.verdict IN ('block', 'ask')
  AND (CAST($event_id AS BIGINT) IS NULL OR e.event_id = CAST($event_id AS BIGINT))
ORDER BY e.event_id DESC
LIMIT 200;
