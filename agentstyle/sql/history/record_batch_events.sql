-- Record the batch's events before they are evaluated (state.* counts each event as "this one
-- included"); verdict, latency and error are filled by finish_event. No parameters.
INSERT INTO events (event_id, ts, harness, native_event, point, session_id, turn_id, generation,
                    compaction, prompt_count, tool, native_tool, call_id, failed, cwd)
SELECT event_id, make_timestamp(CAST(round(ts * 1000000) AS BIGINT)), harness, native_event,
       point, session_id, turn_id, generation, compaction, prompt_count, tool, native_tool,
       call_id, failed, cwd
FROM batch_events
ORDER BY seq;
