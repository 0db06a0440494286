-- state.turns, state.tool_calls and state.failures
-- (docs/conditions.md#state-conditions-over-the-sessions-history) of each batch event, over its
-- session's history and the batch itself (an event counts itself). Run only for events at a point
-- where a condition reads them (point_flags.session_state). Parameters: lists of $seq, $event_id,
-- $harness, $session_id, $point, $native_tool, $failed, $call_id. Result: seq, field, value — three
-- rows per event.
WITH b AS (
    SELECT unnest($seq) AS seq, unnest($event_id) AS event_id, unnest($harness) AS harness,
           unnest($session_id) AS session_id, unnest($point) AS point,
           unnest($native_tool) AS native_tool, unnest($failed) AS failed,
           unnest($call_id) AS call_id
),
session_events AS (
    SELECT e.event_id, e.harness, e.session_id, e.point, e.native_tool, e.failed, e.call_id
    FROM events e
    WHERE (e.harness, e.session_id) IN (SELECT harness, session_id FROM b)
    UNION ALL
    SELECT event_id, harness, session_id, point, native_tool, failed, call_id FROM b
),
call_firsts AS (
    SELECT *,
           point IN ('tool.pre', 'tool.post', 'tool.failed')
           AND row_number() OVER (
               PARTITION BY harness, session_id, coalesce(call_id, CAST(event_id AS VARCHAR)),
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
state AS (
    SELECT b.seq, a.turns, a.tool_calls,
           -- consecutive failures of the same tool: failures since its last success
           CASE WHEN b.native_tool IS NULL THEN 0
                ELSE a.failed_so_far - coalesce(a.failed_at_success, 0) END AS failures
    FROM b
    JOIN at_success a ON a.event_id = b.event_id
)
SELECT seq, unnest(['state.turns', 'state.tool_calls', 'state.failures']) AS field,
       unnest([CAST(turns AS VARCHAR), CAST(tool_calls AS VARCHAR), CAST(failures AS VARCHAR)])
           AS value
FROM state
ORDER BY seq;
