-- Candidate entries of every batch event and whether each one's conditions hold.
-- Parameters: $1 true to return every candidate (explain's trace), false for matched ones only.
-- Reads batch_events, batch_fields, the policy tables and the history.
-- Result: seq, rule_id, rule_order, action, repeat, status, matched — one row per candidate.
--
-- Written for batches (replay) as much as for one event: tool, server and skill globs are
-- matched against the batch's distinct values once, not per event; a regex is only run on
-- values that hold its required literal, or one of its literals (`literal` joined by chr(31):
-- policy/prefilter.py), since a pattern taken from a column is compiled per row.
WITH tool_hits AS (
    SELECT t.rule_id, v.tool AS value
    FROM rule_tools t
    JOIN (SELECT DISTINCT tool FROM batch_events
          WHERE tool IS NOT NULL AND mcp_server IS NULL AND skill IS NULL) v
      ON t.kind = 'tool' AND regexp_matches(v.tool, t.regex)
),
server_hits AS (
    SELECT t.rule_id, v.mcp_server AS value
    FROM rule_tools t
    JOIN (SELECT DISTINCT mcp_server FROM batch_events WHERE mcp_server IS NOT NULL) v
      ON t.kind = 'mcp' AND regexp_matches(v.mcp_server, t.regex)
),
skill_hits AS (
    SELECT t.rule_id, v.skill AS value
    FROM rule_tools t
    JOIN (SELECT DISTINCT skill FROM batch_events WHERE skill IS NOT NULL) v
      ON t.kind = 'skill' AND regexp_matches(v.skill, t.regex)
),
native_hits AS (
    SELECT t.rule_id, t.pattern AS value FROM rule_tools t WHERE t.kind = 'native'
),
cand AS (
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
        WHEN 'tool' THEN
            EXISTS (SELECT 1 FROM native_hits n
                    WHERE n.rule_id = r.rule_id AND n.value = b.native_tool)
            OR (b.mcp_server IS NULL AND b.skill IS NULL
                AND EXISTS (SELECT 1 FROM tool_hits h
                            WHERE h.rule_id = r.rule_id AND h.value = b.tool))
        WHEN 'mcp' THEN b.mcp_server IS NOT NULL AND (
            EXISTS (SELECT 1 FROM native_hits n
                    WHERE n.rule_id = r.rule_id AND n.value = b.native_tool)
            OR EXISTS (SELECT 1 FROM server_hits h
                       WHERE h.rule_id = r.rule_id AND h.value = b.mcp_server))
        WHEN 'skill' THEN b.skill IS NOT NULL AND EXISTS (
            SELECT 1 FROM skill_hits h WHERE h.rule_id = r.rule_id AND h.value = b.skill)
        ELSE false
    END
),
-- state.* of when.md, read from the history (the batch's events are already recorded), and
-- only when an installed condition reads them.
wants_state AS (
    SELECT count(*) > 0 AS yes FROM conditions
    WHERE lookup_field IN ('state.turns', 'state.tool_calls', 'state.failures')
),
session_events AS (
    SELECT e.event_id, e.harness, e.session_id, e.point, e.native_tool, e.failed,
           coalesce(e.call_id, CAST(e.event_id AS VARCHAR)) AS call_key
    FROM events e
    WHERE (SELECT yes FROM wants_state)
      AND (e.harness, e.session_id) IN (SELECT harness, session_id FROM batch_events)
),
call_firsts AS (
    SELECT *,
           point IN ('tool.pre', 'tool.post', 'tool.failed')
           AND row_number() OVER (PARTITION BY harness, session_id, call_key,
                                  point IN ('tool.pre', 'tool.post', 'tool.failed')
                                  ORDER BY event_id) = 1 AS new_call
    FROM session_events
),
counted AS (
    SELECT event_id, harness, session_id, native_tool, point, failed,
           sum(CAST(point = 'prompt.submitted' AS INTEGER)) OVER s AS turns,
           sum(CAST(new_call AS INTEGER)) OVER s AS tool_calls,
           sum(CAST(failed AS INTEGER)) OVER t AS failed_so_far
    FROM call_firsts
    WINDOW s AS (PARTITION BY harness, session_id ORDER BY event_id
                 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW),
           t AS (PARTITION BY harness, session_id, native_tool ORDER BY event_id
                 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
at_success AS (
    -- the running failure count as it stood at the tool's last success
    SELECT *,
           max(CASE WHEN point = 'tool.post' AND NOT failed THEN failed_so_far END) OVER (
               PARTITION BY harness, session_id, native_tool ORDER BY event_id
               ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS failed_at_success
    FROM counted
),
failures AS (
    -- consecutive failures of the same tool: failures since its last success
    SELECT event_id, turns, tool_calls,
           failed_so_far - coalesce(failed_at_success, 0) AS failures
    FROM at_success
    WHERE event_id IN (SELECT event_id FROM batch_events)
),
session_state AS (
    SELECT b.seq, f.turns, f.tool_calls,
           CASE WHEN b.native_tool IS NULL THEN 0 ELSE f.failures END AS failures
    FROM batch_events b
    JOIN failures f ON f.event_id = b.event_id
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
cand_preds AS (
    SELECT c.seq, c.rule_id, k.node_id, k.base_op, k.pattern, k.regex, k.num, k.list_values,
           k.lookup_field, k.field_regex, k.literal, k.literal_ci
    FROM cand c
    JOIN conditions k ON k.rule_id = c.rule_id AND k.kind = 'pred'
    WHERE c.has_condition
),
pred_rows AS (
    -- a plain field: an equality join
    SELECT p.*, f.value
    FROM cand_preds p
    LEFT JOIN event_rows f ON f.seq = p.seq AND f.field = p.lookup_field
    WHERE p.field_regex IS NULL
      AND p.lookup_field NOT IN ('state.rule_hits', 'state.since_last_s')
    UNION ALL
    -- a path with `*` segments: matched against the event's field names
    SELECT p.*, f.value
    FROM cand_preds p
    LEFT JOIN event_rows f ON f.seq = p.seq AND regexp_matches(f.field, p.field_regex)
    WHERE p.field_regex IS NOT NULL
    UNION ALL
    -- per-rule state
    SELECT p.*, f.value
    FROM cand_preds p
    LEFT JOIN rule_rows f ON f.seq = p.seq AND f.rule_id = p.rule_id AND f.field = p.lookup_field
    WHERE p.lookup_field IN ('state.rule_hits', 'state.since_last_s')
),
preds AS (
    SELECT seq, rule_id, node_id, base_op,
           -- CASE runs each branch only on the rows that reach it: the literal test first,
           -- so the regex (compiled per row) only sees values that can match
           bool_or(CASE
               WHEN value IS NULL THEN NULL
               WHEN literal IS NOT NULL
                    AND len(list_filter(string_split(literal, chr(31)), lambda l: contains(
                        CASE WHEN literal_ci THEN lower(value) ELSE value END, l))) = 0
                    THEN false
               WHEN base_op = 'equals' THEN value = pattern
                    OR (num IS NOT NULL AND TRY_CAST(value AS DOUBLE) = num)
               WHEN base_op = 'contains' THEN contains(value, pattern)
               WHEN base_op = 'starts_with' THEN starts_with(value, pattern)
               WHEN base_op = 'ends_with' THEN ends_with(value, pattern)
               WHEN base_op IN ('regex', 'shell_regex', 'glob') THEN regexp_matches(value, regex)
               WHEN base_op = 'in' THEN list_contains(list_values, value)
               WHEN base_op = 'gt' THEN TRY_CAST(value AS DOUBLE) > num
               WHEN base_op = 'gte' THEN TRY_CAST(value AS DOUBLE) >= num
               WHEN base_op = 'lt' THEN TRY_CAST(value AS DOUBLE) < num
               WHEN base_op = 'lte' THEN TRY_CAST(value AS DOUBLE) <= num
               WHEN base_op = 'exists' THEN true
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
    SELECT DISTINCT seq, rule_id
    FROM literals
    GROUP BY seq, rule_id, clause_id, clause_size
    HAVING count(*) FILTER (WHERE truth) = clause_size
)
SELECT c.seq, c.rule_id, c.rule_order, c.action, c.repeat, c.status,
       (NOT c.has_condition OR k.rule_id IS NOT NULL) AS matched
FROM cand c
LEFT JOIN clauses k ON k.seq = c.seq AND k.rule_id = c.rule_id
WHERE $1 OR NOT c.has_condition OR k.rule_id IS NOT NULL
ORDER BY c.seq, c.rule_order;
