-- Record one hook event before it is evaluated (state.* counts it as "this one included").
-- Parameters: $1 time, $2 harness, $3 native event, $4 point, $5 session, $6 turn, $7 generation,
-- $8 compaction, $9 prompt count, $10 tool, $11 native tool, $12 call id, $13 failed, $14 cwd.
-- Result: the new event id.
INSERT INTO events (event_id, ts, harness, native_event, point, session_id, turn_id, generation,
                    compaction, prompt_count, tool, native_tool, call_id, failed, cwd)
VALUES (nextval('event_ids'), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
RETURNING event_id;
