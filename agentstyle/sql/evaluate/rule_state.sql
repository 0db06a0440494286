-- state.rule_hits and state.since_last_s
-- (docs/conditions.md#state-conditions-over-the-sessions-history) for each batch event and each
-- rule placed at its point that reads them, from the history (the hits of the batch's own earlier
-- events are not stored yet: audit/replay.py cuts a batch there). Run only for events at a point
-- where a condition reads them (point_flags.rule_state). Parameters: lists of $seq, $event_id,
-- $harness, $session_id, $point, $ts (epoch seconds). Result: seq, field (`state.rule_hits@<rule>`,
-- `state.since_last_s@<rule>`, the lookup keys of match_rows), value.
WITH b AS (
    SELECT unnest($seq) AS seq, unnest($event_id) AS event_id, unnest($harness) AS harness,
           unnest($session_id) AS session_id, unnest($point) AS point, unnest($ts) AS ts
),
counted AS (
    SELECT b.seq, p.rule_id,
           count(h.rule_id) AS rule_hits,
           -- since this rule last emitted (not since the session's last event)
           coalesce(b.ts - max(epoch(e.ts)) FILTER (WHERE h.rule_id IS NOT NULL), 1e12)
               AS since_last_s
    FROM b
    JOIN placed p ON p.harness = b.harness AND p.point = b.point AND p.uses_rule_state
    LEFT JOIN events e
      ON e.harness = b.harness AND e.session_id = b.session_id AND e.event_id < b.event_id
    LEFT JOIN hits h
      ON h.event_id = e.event_id AND h.rule_id = p.rule_id
     AND h.outcome IN ('emitted', 'blocked', 'asked', 'allowed', 'budget-truncated', 'fixed')
    GROUP BY b.seq, p.rule_id, b.ts
)
SELECT seq, 'state.rule_hits@' || rule_id AS field, CAST(rule_hits AS VARCHAR) AS value
FROM counted
UNION ALL
SELECT seq, 'state.since_last_s@' || rule_id, CAST(since_last_s AS VARCHAR)
FROM counted;
