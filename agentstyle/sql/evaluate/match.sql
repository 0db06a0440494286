-- Candidate entries of every batch event and whether each one's conditions hold.
-- No parameters (reads batch_events, batch_fields, the policy tables and the history).
-- Result: seq, rule_id, rule_order, action, repeat, status, matched — one row per candidate.
WITH cand AS (
    SELECT b.seq, b.event_id, b.session_id, b.harness, b.ts, r.rule_id, r.rule_order,
           r.has_condition, r.uses_rule_state, en.effective_action AS action,
           en.effective_repeat AS repeat, en.status
    FROM batch_events b
    JOIN entries en
      ON en.harness = b.harness AND en.point = b.point
     AND en.status IN ('native', 'partial', 'degraded')
    JOIN rules r ON r.rule_id = en.rule_id AND r.enabled
    WHERE CASE r.target
        WHEN 'system' THEN b.point <> 'session.start' OR list_contains(r.sources, b.session_source)
        WHEN 'event' THEN b.point <> 'session.start' OR list_contains(r.sources, b.session_source)
        WHEN 'tool' THEN EXISTS (
            SELECT 1 FROM rule_tools t
            WHERE t.rule_id = r.rule_id
              AND ((t.kind = 'native' AND t.pattern = b.native_tool)
                OR (t.kind = 'tool' AND b.mcp_server IS NULL AND b.skill IS NULL
                    AND regexp_matches(b.tool, t.regex))))
        WHEN 'mcp' THEN b.mcp_server IS NOT NULL AND EXISTS (
            SELECT 1 FROM rule_tools t
            WHERE t.rule_id = r.rule_id
              AND ((t.kind = 'native' AND t.pattern = b.native_tool)
                OR (t.kind = 'mcp' AND regexp_matches(b.mcp_server, t.regex))))
        WHEN 'skill' THEN b.skill IS NOT NULL AND EXISTS (
            SELECT 1 FROM rule_tools t
            WHERE t.rule_id = r.rule_id AND t.kind = 'skill' AND regexp_matches(b.skill, t.regex))
        ELSE false
    END
),
-- state.* of when.md, read from the history (the current events are already recorded).
session_state AS (
    SELECT b.seq,
           (SELECT count(*) FROM events e
             WHERE e.harness = b.harness AND e.session_id = b.session_id
               AND e.point = 'prompt.submitted' AND e.event_id <= b.event_id) AS turns,
           (SELECT count(DISTINCT coalesce(e.call_id, CAST(e.event_id AS VARCHAR))) FROM events e
             WHERE e.harness = b.harness AND e.session_id = b.session_id
               AND e.point IN ('tool.pre', 'tool.post', 'tool.failed')
               AND e.event_id <= b.event_id) AS tool_calls,
           (SELECT count(*) FROM events e
             WHERE e.harness = b.harness AND e.session_id = b.session_id
               AND e.native_tool = b.native_tool AND e.failed AND e.event_id <= b.event_id
               AND e.event_id > coalesce((
                   SELECT max(s.event_id) FROM events s
                   WHERE s.harness = b.harness AND s.session_id = b.session_id
                     AND s.native_tool = b.native_tool AND s.point = 'tool.post'
                     AND NOT s.failed AND s.event_id <= b.event_id), 0)) AS failures
    FROM batch_events b
),
rule_state AS (
    SELECT c.seq, c.rule_id,
           count(h.rule_id) AS rule_hits,
           -- since this rule last emitted (not since the session's last event)
           coalesce(c.ts - max(epoch(e.ts)) FILTER (WHERE h.rule_id IS NOT NULL), 1e12)
               AS since_last_s
    FROM cand c
    LEFT JOIN events e
      ON e.harness = c.harness AND e.session_id = c.session_id AND e.event_id < c.event_id
    LEFT JOIN hits h
      ON h.event_id = e.event_id AND h.rule_id = c.rule_id
     AND h.outcome IN ('emitted', 'blocked', 'asked', 'allowed', 'budget-truncated')
    WHERE c.uses_rule_state
    GROUP BY c.seq, c.rule_id, c.ts
),
event_rows AS (
    SELECT seq, field, value FROM batch_fields
    UNION ALL SELECT seq, 'state.turns', CAST(turns AS VARCHAR) FROM session_state
    UNION ALL SELECT seq, 'state.tool_calls', CAST(tool_calls AS VARCHAR) FROM session_state
    UNION ALL SELECT seq, 'state.failures', CAST(failures AS VARCHAR) FROM session_state
),
rule_rows AS (
    SELECT seq, rule_id, 'state.rule_hits' AS field, CAST(rule_hits AS VARCHAR) AS value
    FROM rule_state
    UNION ALL
    SELECT seq, rule_id, 'state.since_last_s', CAST(since_last_s AS VARCHAR) FROM rule_state
),
pred_rows AS (
    SELECT c.seq, c.rule_id, k.node_id, k.base_op, k.pattern, k.regex, k.num, k.list_values,
           f.value
    FROM cand c
    JOIN conditions k ON k.rule_id = c.rule_id AND k.kind = 'pred'
    LEFT JOIN event_rows f
      ON f.seq = c.seq
     AND (f.field = k.lookup_field
          OR (k.field_regex IS NOT NULL AND regexp_matches(f.field, k.field_regex)))
    WHERE c.has_condition
      AND k.lookup_field NOT IN ('state.rule_hits', 'state.since_last_s')
    UNION ALL
    SELECT c.seq, c.rule_id, k.node_id, k.base_op, k.pattern, k.regex, k.num, k.list_values,
           f.value
    FROM cand c
    JOIN conditions k ON k.rule_id = c.rule_id AND k.kind = 'pred'
    LEFT JOIN rule_rows f ON f.seq = c.seq AND f.rule_id = c.rule_id AND f.field = k.lookup_field
    -- per-rule state: state.rule_hits and state.since_last_s (the latter does not start with
    -- `state.rule_`, so the two are named)
    WHERE c.has_condition AND k.lookup_field IN ('state.rule_hits', 'state.since_last_s')
),
preds AS (
    SELECT seq, rule_id, node_id, base_op,
           count(value) AS n,
           bool_or(CASE base_op
               WHEN 'equals' THEN value = pattern
                    OR (num IS NOT NULL AND TRY_CAST(value AS DOUBLE) = num)
               WHEN 'contains' THEN contains(value, pattern)
               WHEN 'starts_with' THEN starts_with(value, pattern)
               WHEN 'ends_with' THEN ends_with(value, pattern)
               WHEN 'regex' THEN regexp_matches(value, regex)
               WHEN 'shell_regex' THEN regexp_matches(value, regex)
               WHEN 'glob' THEN regexp_matches(value, regex)
               WHEN 'in' THEN list_contains(list_values, value)
               WHEN 'gt' THEN TRY_CAST(value AS DOUBLE) > num
               WHEN 'gte' THEN TRY_CAST(value AS DOUBLE) >= num
               WHEN 'lt' THEN TRY_CAST(value AS DOUBLE) < num
               WHEN 'lte' THEN TRY_CAST(value AS DOUBLE) <= num
               WHEN 'exists' THEN value IS NOT NULL
               ELSE false
           END) AS hit
    FROM pred_rows
    GROUP BY seq, rule_id, node_id, base_op
),
literals AS (
    SELECT p.seq, p.rule_id, cc.clause_id, cc.clause_size,
           coalesce(p.hit, false) <> cc.negated AS truth
    FROM preds p
    JOIN condition_clauses cc ON cc.rule_id = p.rule_id AND cc.node_id = p.node_id
),
clauses AS (
    SELECT seq, rule_id
    FROM literals
    GROUP BY seq, rule_id, clause_id, clause_size
    HAVING count(*) FILTER (WHERE truth) = clause_size
)
SELECT c.seq, c.rule_id, c.rule_order, c.action, c.repeat, c.status,
       (NOT c.has_condition OR EXISTS (
           SELECT 1 FROM clauses k WHERE k.seq = c.seq AND k.rule_id = c.rule_id)) AS matched
FROM cand c
ORDER BY c.seq, c.rule_order;
