-- Store the state after the batch of sessions that have a row already (update_session.sql
-- for many): each one's last event's bookkeeping, the model kept when the event named none.
-- Parameters: lists of $1 harness, $2 session_id, $3 generation, $4 compaction,
-- $5 prompt_count, $6 model, $7 last event time (epoch seconds), a row per session.
UPDATE sessions
SET generation = v.generation, compaction = v.compaction, prompt_count = v.prompt_count,
    model = coalesce(v.model, sessions.model),
    last_seen = make_timestamp(CAST(round(v.ts * 1000000) AS BIGINT))
FROM (SELECT unnest($1) AS harness, unnest($2) AS session_id, unnest($3) AS generation,
             unnest($4) AS compaction, unnest($5) AS prompt_count, unnest($6) AS model,
             unnest($7) AS ts) v
WHERE sessions.harness = v.harness AND sessions.session_id = v.session_id;
