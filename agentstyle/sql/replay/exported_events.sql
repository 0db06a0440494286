-- The events of loaded STYLE exports (audit/export.py load_exports) with their stored field
-- rows, for `style replay DIR`, but the `state.*` rows a hit stored: the replay derives the
-- state from the history it builds (the export carries the session facts). No parameters.
-- Result: event_id, ts, harness, native_event, point, session_id, turn_id, tool, native_tool,
-- call_id, failed, cwd, stop_active, fields (a list of {field, idx, value}, by field then index) — in
-- recorded order.
SELECT e.event_id, e.ts, e.harness, e.native_event, e.point, e.session_id, e.turn_id, e.tool,
       e.native_tool, e.call_id, e.failed, e.cwd, coalesce(e.stop_active, false) AS stop_active,
       (SELECT list({'field': f.field, 'idx': f.idx, 'value': f.value} ORDER BY f.field, f.idx)
        FROM event_fields f
        WHERE f.event_id = e.event_id AND NOT starts_with(f.field, 'state.')) AS fields
FROM events e
WHERE e.point IS NOT NULL
ORDER BY e.ts, e.event_id;
