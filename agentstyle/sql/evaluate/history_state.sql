-- state.commands_since_edit, state.files_edited and state.commands_failed
-- (docs/conditions.md#state-conditions-over-the-sessions-history) of each batch event, over its
-- session's stored facts (schema 006) and the facts of the batch itself (an event sees its own: a
-- test run's tool.post counts that run). Run only for events at a point where a condition reads
-- them (point_flags.history). Parameters: lists of $1 seq, $2 event_id, $3 harness, $4 session_id;
-- lists of the batch's facts (engine/evaluate.py facts_of) $5 event_id, $6 harness, $7 session_id,
-- $8 kind, $9 value, $10 failed. Result: seq, field, value — a row per list element, each list in
-- the order its elements first happened.
WITH b AS (
    SELECT unnest($1) AS seq, unnest($2) AS event_id, unnest($3) AS harness,
           unnest($4) AS session_id
),
facts AS (
    SELECT f.event_id, f.harness, f.session_id, f.kind, f.value, f.failed
    FROM session_facts f
    WHERE (f.harness, f.session_id) IN (SELECT harness, session_id FROM b)
    UNION ALL
    SELECT unnest($5), unnest($6), unnest($7), unnest($8), unnest($9), unnest($10)
),
seen AS (
    SELECT b.seq, f.event_id, f.kind, f.value, f.failed,
           max(f.event_id) FILTER (WHERE f.kind = 'edit') OVER (PARTITION BY b.seq) AS last_edit
    FROM b
    JOIN facts f
      ON f.harness = b.harness AND f.session_id = b.session_id AND f.event_id <= b.event_id
),
listed AS (
    -- successful commands since the last edit (all of them when nothing was edited)
    SELECT seq, 'state.commands_since_edit' AS field, value, min(event_id) AS first_id
    FROM seen
    WHERE kind = 'command' AND NOT failed AND event_id > coalesce(last_edit, 0)
    GROUP BY seq, value
    UNION ALL
    SELECT seq, 'state.files_edited', value, min(event_id)
    FROM seen
    WHERE kind = 'edit'
    GROUP BY seq, value
    UNION ALL
    -- commands whose most recent run failed: a later success of the same command clears it
    SELECT seq, 'state.commands_failed', value, max(event_id)
    FROM seen
    WHERE kind = 'command'
    GROUP BY seq, value
    HAVING arg_max(failed, event_id)
)
SELECT seq, field, value
FROM listed
ORDER BY seq, field, first_id, value;
