-- Record the batch's events with their answers, after they were decided
-- (docs/design/runtime.md#record). Parameters: lists of $1 event_id, $2 ts (epoch seconds), $3
-- harness, $4 native_event, $5 point, $6 session_id, $7 turn_id, $8 generation, $9 compaction, $10
-- prompt_count, $11 tool, $12 native_tool, $13 call_id, $14 failed, $15 cwd, $16 verdict, $17
-- latency_us (NULL: not answered live), $18 error, $19 stop_active (the loop guard's input).
INSERT INTO events (event_id, ts, harness, native_event, point, session_id, turn_id, generation,
                    compaction, prompt_count, tool, native_tool, call_id, failed, cwd, verdict,
                    latency_us, error, stop_active)
SELECT unnest($1), make_timestamp(CAST(round(unnest($2) * 1000000) AS BIGINT)), unnest($3),
       unnest($4), unnest($5), unnest($6), unnest($7), unnest($8), unnest($9), unnest($10),
       unnest($11), unnest($12), unnest($13), unnest($14), unnest($15), unnest($16),
       unnest($17), unnest($18), unnest($19);
