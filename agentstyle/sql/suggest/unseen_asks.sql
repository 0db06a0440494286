-- The calls a rule asked about whose approval no post event shows (docs/audit.md#suggest): the
-- harness's transcript, which the event named, may still show how the person answered. The
-- same asked calls as consented.sql, but those it counts approved (suggest/asked_macros.sql).
-- No parameters.
-- Result: event_id, ts, harness, session_id, rule_id, tool, native_tool, call_id, transcript,
-- command (tool.input.command), path (file.path), input (tool.input as stored) — by rule,
-- then event.
SELECT a.event_id, a.ts, a.harness, a.session_id, a.rule_id, a.tool, a.native_tool, a.call_id,
       a.transcript,
       event_field(a.event_id, 'tool.input.command') AS command,
       event_field(a.event_id, 'file.path') AS path,
       event_field(a.event_id, 'tool.input') AS input
FROM asked_calls() a
WHERE NOT post_event_came(a.harness, a.session_id, a.event_id, a.native_tool, a.call_id)
ORDER BY a.rule_id, a.event_id;
