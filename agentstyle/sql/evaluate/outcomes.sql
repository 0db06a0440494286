-- Outcome of every rendered candidate: verdict precedence, dedup and refresh against `claims`,
-- the stop loop guard (its own outcome, `loop-guard`), then the per-event token budget
-- (runtime.md steps 7–9).
-- No parameters (reads batch_events, batch_rendered, the policy tables and claims).
-- Result: seq, rule_id, action, outcome, claim_key, tokens, text, model_text, closed_error (the
-- rule failed and has `fail: closed`), ordered by seq and output order (priority desc, package
-- order, rule order).
WITH r AS (
    SELECT br.seq, br.rule_id, br.text, br.model_text, br.hash, br.tokens, br.truncated,
           br.error, b.harness, b.point, b.session_id, b.generation, b.compaction,
           b.prompt_count, b.turn_key, b.stop_active, ru.reinject, ru.refresh, ru.priority,
           ru.fail,
           ru.rule_order, p.pkg_order, p.per_event,
           en.effective_action AS action, en.effective_repeat AS repeat
    FROM batch_rendered br
    JOIN batch_events b ON b.seq = br.seq
    JOIN rules ru ON ru.rule_id = br.rule_id
    JOIN packages p ON p.name = ru.package
    JOIN entries en ON en.rule_id = br.rule_id AND en.harness = b.harness AND en.point = b.point
),
guarded AS (
    -- A stop that already continues because of a stop hook is not blocked again.
    SELECT *, (action IN ('block', 'ask') AND point IN ('stop', 'subagent.stop')
               AND stop_active) AS loop_guard
    FROM r
),
verdicts AS (
    SELECT seq,
           -- a failing `fail: closed` rule refuses like a block (runtime.md)
           bool_or((action = 'block' AND error IS NULL AND NOT loop_guard)
                   OR (error IS NOT NULL AND fail = 'closed')) AS any_block,
           bool_or(action = 'ask' AND error IS NULL AND NOT loop_guard) AS any_ask
    FROM guarded
    GROUP BY seq
),
keyed AS (
    SELECT g.*, v.any_block, v.any_ask,
           CASE
               WHEN g.action NOT IN ('inject', 'warn') OR g.point = 'subagent.start' THEN NULL
               WHEN g.repeat = 'session' THEN md5(concat_ws('|', g.harness, g.session_id,
                    g.generation, CASE WHEN g.reinject THEN g.compaction ELSE -1 END,
                    g.rule_id, g.hash))
               WHEN g.repeat = 'turn' THEN md5(concat_ws('|', g.harness, g.session_id,
                    g.generation, 'turn', g.turn_key, g.rule_id, g.hash))
               ELSE NULL
           END AS claim_key
    FROM guarded g
    JOIN verdicts v ON v.seq = g.seq
),
deduped AS (
    SELECT k.*,
           (SELECT max(c.prompt_count) FROM claims c WHERE c.claim_key = k.claim_key)
               AS last_claim_pc,
           row_number() OVER (PARTITION BY k.claim_key, (k.claim_key IS NULL) ORDER BY k.seq)
               AS nth_in_batch
    FROM keyed k
),
decided AS (
    SELECT *,
           CASE
               WHEN error IS NOT NULL THEN 'error'
               WHEN loop_guard THEN 'loop-guard'
               WHEN any_block THEN CASE WHEN action = 'block' THEN 'blocked'
                                        ELSE 'block-suppressed' END
               WHEN action = 'ask' THEN 'asked'
               WHEN action = 'allow' THEN CASE WHEN any_ask THEN 'block-suppressed'
                                               ELSE 'allowed' END
               WHEN claim_key IS NOT NULL AND nth_in_batch > 1 THEN 'dedup-suppressed'
               WHEN claim_key IS NOT NULL AND last_claim_pc IS NOT NULL
                    AND (refresh = 0 OR prompt_count - last_claim_pc < refresh)
                   THEN 'dedup-suppressed'
               ELSE 'emit'
           END AS pre_outcome
    FROM deduped
),
budgeted AS (
    SELECT *,
           sum(CASE WHEN pre_outcome = 'emit' THEN tokens ELSE 0 END) OVER (
               PARTITION BY seq ORDER BY (pre_outcome <> 'emit'), priority DESC, pkg_order,
                        rule_order
               ROWS UNBOUNDED PRECEDING) AS running_tokens,
           min(CASE WHEN pre_outcome = 'emit' THEN per_event END) OVER (PARTITION BY seq)
               AS event_budget
    FROM decided
)
SELECT seq, rule_id, action,
       CASE
           WHEN pre_outcome <> 'emit' THEN pre_outcome
           WHEN running_tokens > event_budget THEN 'budget-dropped'
           WHEN truncated THEN 'budget-truncated'
           ELSE 'emitted'
       END AS outcome,
       claim_key, tokens, text, model_text,
       (pre_outcome = 'error' AND fail = 'closed') AS closed_error
FROM budgeted
ORDER BY seq, priority DESC, pkg_order, rule_order;
