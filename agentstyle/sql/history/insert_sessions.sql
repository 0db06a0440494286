-- Store the sessions the batch opened (no row yet; every writer holds the OS lock): each one's
-- last event's bookkeeping. Parameters: a list per column of `sessions` (evaluator/records.py
-- SessionRow), each named as the column it fills; $first_seen and $last_seen, its first and
-- last event's time, in epoch seconds.
INSERT INTO sessions BY NAME
SELECT unnest($harness) AS harness, unnest($session_id) AS session_id,
       unnest($generation) AS generation, unnest($compaction) AS compaction,
       unnest($prompt_count) AS prompt_count, unnest($model) AS model,
       make_timestamp(CAST(round(unnest($first_seen) * 1000000) AS BIGINT)) AS first_seen,
       make_timestamp(CAST(round(unnest($last_seen) * 1000000) AS BIGINT)) AS last_seen;
