-- Store each session's state after the batch (its last event's bookkeeping). No parameters.
INSERT INTO sessions (harness, session_id, generation, compaction, prompt_count, model,
                      first_seen, last_seen)
SELECT harness, session_id, arg_max(generation, seq), arg_max(compaction, seq),
       arg_max(prompt_count, seq), arg_max(model, seq),
       make_timestamp(CAST(round(min(ts) * 1000000) AS BIGINT)),
       make_timestamp(CAST(round(max(ts) * 1000000) AS BIGINT))
FROM batch_events
GROUP BY harness, session_id
ON CONFLICT (harness, session_id) DO UPDATE SET
    generation = excluded.generation,
    compaction = excluded.compaction,
    prompt_count = excluded.prompt_count,
    model = coalesce(excluded.model, sessions.model),
    last_seen = excluded.last_seen;
