-- Audit report `rules`: one row per rule (installed, or seen in the history of the window).
-- Candidate events of a rule are the window's events at its entries' harness and point that
-- its target selects (tool/mcp/skill patterns as in evaluate/match.sql, from the stored event
-- row, its kept fields, or the native tool name when the fields were not kept), plus every
-- event it fired on (it was a candidate then, whatever the policy says now).
-- Parameters: $since, $until (TIMESTAMP or NULL), $session, $harness (exact or NULL),
-- $rule (GLOB over rule ids or NULL: which rows to return), $min_events (the sample a flag
-- needs: rate flags need that many candidate events, `dead` five times as many at its point).
-- $first_id, $last_id: the window's event ids (audit/window_ids.sql); hits and field rows are
-- read in that range only, which their zone maps find without a scan of the whole history.
-- Result: rule, action, layer (managed, user or project: docs/harnesses/index.md#layers),
-- candidates, fired, emitted (emitted + budget-truncated), blocked, asked,
-- fixed, dedup_suppressed, loop_guarded (a stop not blocked again), budget_cuts
-- (budget-truncated + budget-dropped), errors, checks_run, checks_spoke, checks_timed_out,
-- checks_crashed (a check rule's results, the `check.done` events that name it in
-- `check.rule`: how many ran, on how many its rule spoke (emitted or budget-truncated), timed
-- out, crashed; docs/audit.md#checks; a `prompt` check: the stops it was asked at, and those
-- it continued), excepted (events its condition as written held on
-- that an exception or its own `unless` took out: not counted as fired), exceptions (each
-- `package: reason` of another package narrowing it, docs/packages.md#exceptions), hit_rate and
-- block_rate (per candidate event), tokens_emitted, last_fired, flag (comma-separated:
-- erroring — has `error` outcomes; looping — a stop rule blocking more than half the stops;
-- noisy — a warn/ask/inject firing on more than 20% of its candidates, except an
-- unconditional session-start inject (a project brief: meant to speak every session);
-- broad — a rule with a condition that holds on every candidate; dead — never fired, not a
-- built-in `style/` rule; only `erroring` for rules no longer installed) — in policy order,
-- then the rules no longer installed by id.
WITH ev AS (
    SELECT e.*
    FROM window_events($since, $until, $session, $harness) e
),
kept AS (
    SELECT f.event_id,
           max(f.value) FILTER (WHERE f.field = 'mcp.server') AS mcp_server,
           max(f.value) FILTER (WHERE f.field = 'skill.name') AS skill,
           max(f.value) FILTER (WHERE f.field = 'session.source') AS source
    FROM event_fields f
    JOIN ev ON ev.event_id = f.event_id AND f.event_id BETWEEN $first_id AND $last_id
    WHERE f.field IN ('mcp.server', 'skill.name', 'session.source')
    GROUP BY f.event_id
),
x AS (
    SELECT ev.event_id, ev.harness, ev.point, ev.tool, ev.native_tool,
           coalesce(k.mcp_server,
                    nullif(regexp_extract(ev.native_tool, '^mcp__(.+?)__', 1), '')) AS mcp_server,
           (k.skill IS NOT NULL OR coalesce(ev.native_tool = 'Skill', false)) AS is_skill,
           k.skill,
           k.source
    FROM ev
    LEFT JOIN kept k ON k.event_id = ev.event_id
),
placed AS (
    SELECT DISTINCT en.rule_id, en.harness, en.point
    FROM entries en
    JOIN rules r ON r.rule_id = en.rule_id AND r.enabled
    WHERE en.point IS NOT NULL AND en.status IN ('native', 'partial', 'degraded')
),
-- Events grouped by what candidate selection looks at, so each rule's target is tested once
-- per kind of event rather than once per event.
kinds AS (
    SELECT harness, point, tool, native_tool, mcp_server, is_skill, skill, source,
           count(*) AS n
    FROM x
    GROUP BY ALL
),
point_events AS (
    SELECT p.rule_id, sum(k.n) AS n
    FROM placed p
    JOIN kinds k ON k.harness = p.harness AND k.point = p.point
    GROUP BY p.rule_id
),
cand_kinds AS (
    SELECT p.rule_id, k.*
    FROM placed p
    JOIN rules r ON r.rule_id = p.rule_id
    JOIN kinds k ON k.harness = p.harness AND k.point = p.point
    WHERE CASE r.target
        WHEN 'system' THEN k.point <> 'session.start' OR k.source IS NULL
                           OR list_contains(r.sources, k.source)
        WHEN 'event' THEN k.point <> 'session.start' OR k.source IS NULL
                          OR list_contains(r.sources, k.source)
        WHEN 'tool' THEN EXISTS (
            SELECT 1 FROM rule_tools t
            WHERE t.rule_id = r.rule_id
              AND ((t.kind = 'native' AND t.pattern = k.native_tool)
                OR (t.kind = 'tool' AND k.mcp_server IS NULL AND NOT k.is_skill
                    AND regexp_matches(k.tool, t.regex))))
        WHEN 'mcp' THEN k.mcp_server IS NOT NULL AND EXISTS (
            SELECT 1 FROM rule_tools t
            WHERE t.rule_id = r.rule_id
              AND ((t.kind = 'native' AND t.pattern = k.native_tool)
                OR (t.kind = 'mcp' AND regexp_matches(k.mcp_server, t.regex))))
        WHEN 'skill' THEN k.is_skill AND EXISTS (
            SELECT 1 FROM rule_tools t
            WHERE t.rule_id = r.rule_id AND t.kind = 'skill'
              AND (k.skill IS NULL OR regexp_matches(k.skill, t.regex)))
        ELSE false
    END
),
ht AS (
    SELECT h.rule_id, h.event_id, h.outcome, h.tokens, ev.ts
    FROM hits h
    JOIN ev ON ev.event_id = h.event_id AND h.event_id BETWEEN $first_id AND $last_id
),
-- Events a rule fired on that the current policy would not select (it changed since).
fired_elsewhere AS (
    SELECT DISTINCT ht.rule_id, ht.event_id
    FROM ht
    JOIN x ON x.event_id = ht.event_id
    WHERE NOT EXISTS (
        SELECT 1 FROM cand_kinds c
        WHERE c.rule_id = ht.rule_id
          AND c.harness = x.harness AND c.point = x.point
          AND c.tool IS NOT DISTINCT FROM x.tool
          AND c.native_tool IS NOT DISTINCT FROM x.native_tool
          AND c.mcp_server IS NOT DISTINCT FROM x.mcp_server
          AND c.is_skill = x.is_skill
          AND c.skill IS NOT DISTINCT FROM x.skill
          AND c.source IS NOT DISTINCT FROM x.source)
),
candidates AS (
    SELECT rule_id, sum(n) AS n
    FROM (SELECT rule_id, n FROM cand_kinds
          UNION ALL
          SELECT rule_id, count(*) FROM fired_elsewhere GROUP BY rule_id)
    GROUP BY rule_id
),
-- A check rule's `check-due` (its check was started) is not a firing: it said nothing then;
-- nor is a redact rule's `nothing-redacted` (`keep` left every match).
fired AS (
    SELECT rule_id,
           count(DISTINCT event_id)
               FILTER (WHERE outcome NOT IN ('excepted', 'check-due', 'nothing-redacted')) AS fired,
           count(DISTINCT event_id) FILTER (WHERE outcome = 'excepted') AS excepted,
           count(*) FILTER (WHERE outcome IN ('emitted', 'budget-truncated')) AS emitted,
           count(*) FILTER (WHERE outcome = 'blocked') AS blocked,
           count(*) FILTER (WHERE outcome = 'asked') AS asked,
           count(*) FILTER (WHERE outcome = 'fixed') AS fixed,
           count(*) FILTER (WHERE outcome = 'dedup-suppressed') AS dedup_suppressed,
           count(*) FILTER (WHERE outcome = 'loop-guard') AS loop_guarded,
           count(*) FILTER (WHERE outcome IN ('budget-truncated', 'budget-dropped'))
               AS budget_cuts,
           count(*) FILTER (WHERE outcome = 'error') AS errors,
           coalesce(sum(tokens) FILTER (WHERE outcome IN ('emitted', 'budget-truncated')), 0)
               AS tokens_emitted,
           max(ts) FILTER (WHERE outcome NOT IN ('excepted', 'check-due', 'nothing-redacted'))
               AS last_fired
    FROM ht
    GROUP BY rule_id
),
-- The checks' results: each `check.done` event names the rule it was run for (`check.rule`,
-- kept whatever the log mode but `off`); timed out and crashed are its own fields, spoke is a
-- hit of that rule on it that said something.
results AS (
    SELECT ev.event_id,
           max(f.value) FILTER (WHERE f.field = 'check.rule') AS rule_id,
           coalesce(bool_or(f.field = 'check.timed_out' AND f.value = 'true'), false)
               AS timed_out,
           coalesce(bool_or(f.field = 'check.crashed'), false) AS crashed
    FROM ev
    JOIN event_fields f ON f.event_id = ev.event_id AND f.event_id BETWEEN $first_id AND $last_id
    WHERE ev.point = 'check.done' AND f.field IN ('check.rule', 'check.timed_out', 'check.crashed')
    GROUP BY ev.event_id
),
checks AS (
    SELECT r.rule_id,
           count(*) AS runs,
           count(*) FILTER (WHERE EXISTS (
               SELECT 1 FROM ht
               WHERE ht.event_id = r.event_id AND ht.rule_id = r.rule_id
                 AND ht.outcome IN ('emitted', 'budget-truncated'))) AS spoke,
           count(*) FILTER (WHERE r.timed_out) AS timed_out,
           count(*) FILTER (WHERE r.crashed) AS crashed
    FROM results r
    WHERE r.rule_id IS NOT NULL AND r.rule_id <> ''
    GROUP BY r.rule_id
),
-- A `prompt` check is the client's own hook at a stop: it is asked at every stop STYLE's own
-- Stop handler recorded, and it continued one when the session's next stop came with the
-- client's `stop_hook_active` while no rule of STYLE's refused that stop (docs/audit.md#checks).
stops AS (
    SELECT ev.event_id, ev.harness,
           lead(ev.stop_active) OVER (PARTITION BY ev.harness, ev.session_id
                                      ORDER BY ev.event_id) AS next_continued
    FROM ev
    WHERE ev.point = 'stop'
),
prompted AS (
    SELECT en.rule_id,
           count(*) AS runs,
           count(*) FILTER (WHERE coalesce(s.next_continued, false) AND NOT EXISTS (
               SELECT 1 FROM ht
               WHERE ht.event_id = s.event_id AND ht.outcome IN ('blocked', 'asked'))) AS spoke
    FROM (SELECT DISTINCT rule_id, harness FROM entries WHERE effective_action = 'prompt') en
    JOIN stops s ON s.harness = en.harness
    GROUP BY en.rule_id
),
all_checks AS (
    SELECT rule_id, runs, spoke, timed_out, crashed FROM checks
    UNION ALL
    SELECT rule_id, runs, spoke, 0, 0 FROM prompted
),
ids AS (
    SELECT rule_id FROM rules
    UNION
    SELECT rule_id FROM fired
    UNION
    SELECT rule_id FROM all_checks
),
narrowed AS (
    SELECT rule_id, string_agg(package || ': ' || reason, '; '
                               ORDER BY package, source_file, source_line) AS exceptions
    FROM rule_exceptions
    WHERE NOT starts_with(rule_id, package || '/')  -- a rule's own `unless` is part of it
    GROUP BY rule_id
),
measured AS (
    SELECT i.rule_id,
           r.action,
           r.layer,
           r.rule_order,
           CAST(coalesce(c.n, 0) AS BIGINT) AS candidates,
           coalesce(f.fired, 0) AS fired,
           coalesce(f.emitted, 0) AS emitted,
           coalesce(f.blocked, 0) AS blocked,
           coalesce(f.asked, 0) AS asked,
           coalesce(f.fixed, 0) AS fixed,
           coalesce(f.dedup_suppressed, 0) AS dedup_suppressed,
           coalesce(f.loop_guarded, 0) AS loop_guarded,
           coalesce(f.budget_cuts, 0) AS budget_cuts,
           coalesce(f.errors, 0) AS errors,
           coalesce(k.runs, 0) AS checks_run,
           coalesce(k.spoke, 0) AS checks_spoke,
           coalesce(k.timed_out, 0) AS checks_timed_out,
           coalesce(k.crashed, 0) AS checks_crashed,
           coalesce(f.excepted, 0) AS excepted,
           x.exceptions,
           CAST(coalesce(f.tokens_emitted, 0) AS BIGINT) AS tokens_emitted,
           f.last_fired,
           CAST(coalesce(pe.n, 0) AS BIGINT) AS point_events,
           r.package,
           r.has_condition,
           coalesce(r.target = 'system' OR r.event = 'session.start', false)
               AS at_session_start,
           coalesce(r.event IN ('stop', 'subagent.stop'), false) AS at_stop
    FROM ids i
    LEFT JOIN rules r ON r.rule_id = i.rule_id
    LEFT JOIN candidates c ON c.rule_id = i.rule_id
    LEFT JOIN fired f ON f.rule_id = i.rule_id
    LEFT JOIN point_events pe ON pe.rule_id = i.rule_id
    LEFT JOIN narrowed x ON x.rule_id = i.rule_id
    LEFT JOIN all_checks k ON k.rule_id = i.rule_id
    WHERE $rule IS NULL OR i.rule_id GLOB $rule
)
SELECT rule_id AS rule,
       action,
       layer,
       candidates,
       fired,
       emitted,
       blocked,
       asked,
       fixed,
       dedup_suppressed,
       loop_guarded,
       budget_cuts,
       errors,
       checks_run,
       checks_spoke,
       checks_timed_out,
       checks_crashed,
       excepted,
       exceptions,
       round(fired / nullif(candidates, 0), 4) AS hit_rate,
       round(blocked / nullif(candidates, 0), 4) AS block_rate,
       tokens_emitted,
       last_fired,
       nullif(concat_ws(',',
           CASE WHEN errors > 0 THEN 'erroring' END,
           CASE WHEN at_stop AND action = 'block' AND candidates >= $min_events
                     AND blocked > 0.5 * candidates
                THEN 'looping' END,
           CASE WHEN action IN ('warn', 'ask', 'inject') AND candidates >= $min_events
                     AND fired > 0.2 * candidates
                     AND NOT (NOT has_condition AND at_session_start)
                THEN 'noisy' END,
           CASE WHEN action IS NOT NULL AND has_condition AND candidates >= $min_events
                     AND fired = candidates
                THEN 'broad' END,
           CASE WHEN action IS NOT NULL AND fired = 0 AND package <> 'style'
                     AND point_events >= 5 * $min_events
                THEN 'dead' END), '') AS flag
FROM measured
ORDER BY rule_order NULLS LAST, rule_id;
