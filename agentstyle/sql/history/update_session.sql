-- Store a session's state after the batch when it has a row already: its last event's
-- bookkeeping, the model kept when the event named none.
-- Parameters (evaluator/records.py SessionUpdate): $harness, $session_id, $generation,
-- $compaction, $prompt_count, $model, $last_seen (its last event's time, epoch seconds).
UPDATE sessions
SET generation = $generation, compaction = $compaction, prompt_count = $prompt_count,
    model = coalesce($model, model),
    last_seen = make_timestamp(CAST(round($last_seen * 1000000) AS BIGINT))
WHERE harness = $harness AND session_id = $session_id;
