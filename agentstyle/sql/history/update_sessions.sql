-- Store the state after the batch of sessions that have a row already (update_session.sql
-- for many): each one's last event's bookkeeping, the model kept when the event named none.
-- Parameters: lists of update_session.sql's (evaluator/records.py SessionUpdate), a row per
-- session: $harness, $session_id, $generation, $compaction, $prompt_count, $model,
-- $last_seen (epoch seconds).
UPDATE sessions
SET generation = v.generation, compaction = v.compaction, prompt_count = v.prompt_count,
    model = coalesce(v.model, sessions.model),
    last_seen = make_timestamp(CAST(round(v.last_seen * 1000000) AS BIGINT))
FROM (SELECT unnest($harness) AS harness, unnest($session_id) AS session_id,
             unnest($generation) AS generation, unnest($compaction) AS compaction,
             unnest($prompt_count) AS prompt_count, unnest($model) AS model,
             unnest($last_seen) AS last_seen) v
WHERE sessions.harness = v.harness AND sessions.session_id = v.session_id;
