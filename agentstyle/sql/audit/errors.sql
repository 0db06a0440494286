-- Audit report `errors`: what went wrong, per harness and cause. Hook failures
-- (docs/design/runtime.md#handler-failure, no rule): the event was answered without evaluation —
-- fail open — unless a `fail: closed` rule or `--fail-closed` refused it. A hook failure is written
-- to `.style/logs/errors.log` first and then recorded on an event row when the database can be
-- written, so the two sources overlap: a cause's count is the larger of the two. Rule errors
-- (an `error` outcome, its detail as the cause): the event went on without that rule (fail
-- open) unless the rule says `fail: closed`.
-- Parameters: $since, $until (TIMESTAMP or NULL), $session, $harness (exact or NULL),
-- $rule (GLOB over rule ids or NULL: only those rules' errors, no hook failures),
-- $log (STRUCT(ts, harness, native_event, cause)[]: the errors.log lines; empty for exports).
-- $first_id, $last_id: the window's event ids (audit/window_ids.sql); hits and field rows are
-- read in that range only, which their zone maps find without a scan of the whole history.
-- Result: harness, rule (NULL for a hook failure), cause, failures, fail_open, refused,
-- in_database, in_log, native_events (comma-separated), first_seen, last_seen — most
-- failures first.
WITH recorded AS (
    SELECT e.ts, e.harness, CAST(NULL AS VARCHAR) AS rule, e.native_event, e.error AS cause,
           e.verdict = 'block' AS refused
    FROM window_events($since, $until, $session, $harness) e
    WHERE e.error IS NOT NULL
      AND $rule IS NULL
    UNION ALL
    SELECT e.ts, e.harness, h.rule_id, e.native_event, coalesce(h.detail, 'no detail recorded'),
           coalesce(r.fail = 'closed', false)
    FROM window_hits($rule, $first_id, $last_id) h
    JOIN window_events($since, $until, $session, $harness) e ON e.event_id = h.event_id
    LEFT JOIN rules r ON r.rule_id = h.rule_id
    WHERE h.outcome = 'error'
),
logged AS (
    SELECT l.ts, l.harness, l.native_event, l.cause
    FROM (SELECT unnest(CAST($log AS STRUCT(ts TIMESTAMP, harness VARCHAR,
                                             native_event VARCHAR, cause VARCHAR)[]),
                        recursive := true)) l
    WHERE $rule IS NULL
      AND $session IS NULL
      AND ($since IS NULL OR l.ts >= $since)
      AND ($until IS NULL OR l.ts < $until)
      AND ($harness IS NULL OR l.harness = $harness)
),
per_source AS (
    SELECT harness, rule, cause, count(*) AS in_database,
           count(*) FILTER (WHERE refused) AS refused, 0 AS in_log,
           list(DISTINCT native_event) AS events, min(ts) AS first_seen, max(ts) AS last_seen
    FROM recorded
    GROUP BY harness, rule, cause
    UNION ALL
    SELECT harness, NULL, cause, 0, 0, count(*), list(DISTINCT native_event), min(ts), max(ts)
    FROM logged
    GROUP BY harness, cause
),
per_cause AS (
    SELECT harness, rule, cause,
           CAST(sum(in_database) AS BIGINT) AS in_database,
           CAST(sum(refused) AS BIGINT) AS refused,
           CAST(sum(in_log) AS BIGINT) AS in_log,
           list_sort(list_distinct(flatten(list(events)))) AS events,
           min(first_seen) AS first_seen,
           max(last_seen) AS last_seen
    FROM per_source
    GROUP BY harness, rule, cause
)
SELECT harness,
       rule,
       cause,
       greatest(in_database, in_log) AS failures,
       greatest(in_database, in_log) - refused AS fail_open,
       refused,
       in_database,
       in_log,
       array_to_string(events, ',') AS native_events,
       first_seen,
       last_seen
FROM per_cause
ORDER BY failures DESC, harness, rule NULLS FIRST, cause;
