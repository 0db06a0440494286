-- Store each session's state after the batch: its last event's bookkeeping, the model kept
-- when the event named none, first seen on creation only.
-- Parameters: lists of $1 harness, $2 session_id, $3 generation, $4 compaction,
-- $5 prompt_count, $6 model, $7 first and $8 last event time (epoch seconds), a row per session.
INSERT INTO sessions (harness, session_id, generation, compaction, prompt_count, model,
                      first_seen, last_seen)
SELECT unnest($1), unnest($2), unnest($3), unnest($4), unnest($5), unnest($6),
       make_timestamp(CAST(round(unnest($7) * 1000000) AS BIGINT)),
       make_timestamp(CAST(round(unnest($8) * 1000000) AS BIGINT))
ON CONFLICT (harness, session_id) DO UPDATE SET
    generation = excluded.generation,
    compaction = excluded.compaction,
    prompt_count = excluded.prompt_count,
    model = coalesce(excluded.model, sessions.model),
    last_seen = excluded.last_seen;
