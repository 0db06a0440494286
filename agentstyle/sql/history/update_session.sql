-- Store a session's state after the batch when it has a row already: its last event's
-- bookkeeping, the model kept when the event named none.
-- Parameters: $1 harness, $2 session_id, $3 generation, $4 compaction, $5 prompt_count,
-- $6 model, $7 last event time (epoch seconds).
UPDATE sessions
SET generation = $3, compaction = $4, prompt_count = $5, model = coalesce($6, model),
    last_seen = make_timestamp(CAST(round($7 * 1000000) AS BIGINT))
WHERE harness = $1 AND session_id = $2;
