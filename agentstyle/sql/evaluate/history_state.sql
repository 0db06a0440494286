-- state.commands_since_edit, state.files_edited and state.commands_failed
-- (docs/conditions.md#state-conditions-over-the-sessions-history) of each batch event, over its
-- session's stored facts (schema 006) and the facts of the batch itself (an event sees its own: a
-- test run's tool.post counts that run). Run only for events at a point where a condition reads
-- them (point_flags.history). Parameters: lists of $seq, $event_id, $harness, $session_id; lists of
-- the batch's facts (evaluator/evaluate.py facts_of, evaluator/records.py FactRow) $fact_harness,
-- $fact_session_id, $fact_event_id, $fact_kind, $fact_value, $fact_failed. Result: seq, field,
-- value — a row per list element, each list in the order its elements first happened.
WITH b AS (
    SELECT unnest($seq) AS seq, unnest($event_id) AS event_id, unnest($harness) AS harness,
           unnest($session_id) AS session_id
),
facts AS (
    SELECT f.event_id, f.harness, f.session_id, f.kind, f.value, f.failed
    FROM session_facts f
    WHERE (f.harness, f.session_id) IN (SELECT harness, session_id FROM b)
    UNION ALL
    SELECT unnest($fact_event_id), unnest($fact_harness), unnest($fact_session_id),
           unnest($fact_kind), unnest($fact_value), unnest($fact_failed)
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
