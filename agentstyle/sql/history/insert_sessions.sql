-- Store the sessions the batch opened (no row yet; every writer holds the OS lock): each one's
-- last event's bookkeeping. Parameters: lists of $1 harness, $2 session_id, $3 generation,
-- $4 compaction, $5 prompt_count, $6 model, $7 first and $8 last event time (epoch seconds).
INSERT INTO sessions (harness, session_id, generation, compaction, prompt_count, model,
                      first_seen, last_seen)
SELECT unnest($1), unnest($2), unnest($3), unnest($4), unnest($5), unnest($6),
       make_timestamp(CAST(round(unnest($7) * 1000000) AS BIGINT)),
       make_timestamp(CAST(round(unnest($8) * 1000000) AS BIGINT));
