-- Audit report `coverage`: what STYLE recorded of the named sessions, to match against the tool
-- calls their transcripts show (docs/audit.md#coverage). Read whatever their time: a call in
-- the window may be matched by an event just outside it.
-- Parameters: $sessions (VARCHAR[]: the session ids the transcripts name).
-- Result: harness, session, native_event, point, native_tool, call_id, ts, verdict, error, in
-- the order they were recorded.
SELECT e.harness,
       e.session_id AS session,
       e.native_event,
       e.point,
       e.native_tool,
       e.call_id,
       e.ts,
       e.verdict,
       e.error
FROM events e
WHERE e.session_id IN (SELECT unnest($sessions))
ORDER BY e.ts, e.event_id;
