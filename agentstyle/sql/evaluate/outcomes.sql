-- Outcome of every rendered candidate (docs/design/runtime.md#precedence to #budget): verdict
-- precedence, the stop loop guard (its own outcome, `loop-guard`), dedup and refresh against
-- `claims` (only the batch's own keys are looked up), then the per-event token budget.
-- Parameters, a list each with a row per rendered candidate (evaluator/records.py OutcomeRow):
-- $seq, $rule_id, $hash, $tokens, $truncated, $failed (rendering raised), and its event's
-- $harness, $point, $session_id, $generation, $compaction, $prompt_count, $turn_key,
-- $stop_active.
-- Result: seq, rule_id, outcome, claim_key, closed_error (the rule failed and has
-- `fail: closed`) — ordered by seq and output order (priority desc, package order, rule
-- order).
WITH r AS (
    SELECT unnest($seq) AS seq, unnest($rule_id) AS rule_id, unnest($hash) AS hash,
           unnest($tokens) AS tokens, unnest($truncated) AS truncated, unnest($failed) AS failed,
           unnest($harness) AS harness, unnest($point) AS point,
           unnest($session_id) AS session_id, unnest($generation) AS generation,
           unnest($compaction) AS compaction, unnest($prompt_count) AS prompt_count,
           unnest($turn_key) AS turn_key, unnest($stop_active) AS stop_active
),
keyed AS (
    SELECT r.*, p.action, p.refresh, p.fail, p.priority, p.pkg_order, p.rule_order,
           p.per_event,
           -- a stop that already continues because of a stop hook is not blocked again
           p.action IN ('block', 'ask') AND r.point IN ('stop', 'subagent.stop')
               AND r.stop_active AS loop_guard,
           CASE
               WHEN p.action NOT IN ('inject', 'warn') OR r.point = 'subagent.start' THEN NULL
               WHEN p.repeat = 'session' THEN md5(concat_ws('|', r.harness, r.session_id,
                    r.generation, CASE WHEN p.reinject THEN r.compaction ELSE -1 END,
                    r.rule_id, r.hash))
               WHEN p.repeat = 'turn' THEN md5(concat_ws('|', r.harness, r.session_id,
                    r.generation, 'turn', r.turn_key, r.rule_id, r.hash))
           END AS claim_key
    FROM r
    JOIN placed p ON p.harness = r.harness AND p.point = r.point AND p.rule_id = r.rule_id
),
decided AS (
    SELECT k.*,
           CASE
               WHEN k.failed THEN 'error'
               WHEN k.loop_guard THEN 'loop-guard'
               -- a failing `fail: closed` rule refuses like a block
               -- (docs/design/runtime.md#a-rule-that-fails)
               WHEN bool_or((k.action = 'block' AND NOT k.failed AND NOT k.loop_guard)
                            OR (k.failed AND k.fail = 'closed')) OVER v
                   THEN CASE WHEN k.action = 'block' THEN 'blocked' ELSE 'block-suppressed' END
               WHEN k.action = 'ask' THEN 'asked'
               WHEN k.action = 'allow'
                   THEN CASE WHEN bool_or(k.action = 'ask' AND NOT k.failed AND NOT k.loop_guard)
                                  OVER v THEN 'block-suppressed' ELSE 'allowed' END
               -- an earlier row of the batch holds the key
               WHEN k.claim_key IS NOT NULL
                    AND row_number() OVER (PARTITION BY k.claim_key ORDER BY k.seq) > 1
                   THEN 'dedup-suppressed'
               WHEN c.last_pc IS NOT NULL AND (k.refresh = 0 OR k.prompt_count - c.last_pc < k.refresh)
                   THEN 'dedup-suppressed'
               ELSE 'emit'
           END AS pre
    FROM keyed k
    LEFT JOIN (SELECT claim_key, max(prompt_count) AS last_pc
               FROM claims
               WHERE claim_key IN (SELECT claim_key FROM keyed)
               GROUP BY claim_key) c ON c.claim_key = k.claim_key
    WINDOW v AS (PARTITION BY k.seq)
)
SELECT seq, rule_id,
       CASE
           WHEN pre <> 'emit' THEN pre
           -- a redaction is never dropped for the budget: the secret would stay in the output
           WHEN action = 'redact' THEN CASE WHEN truncated THEN 'budget-truncated'
                                            ELSE 'emitted' END
           WHEN sum(CASE WHEN pre = 'emit' THEN tokens ELSE 0 END) OVER (
                    PARTITION BY seq ORDER BY (pre <> 'emit'), priority DESC, pkg_order,
                                              rule_order
                    ROWS UNBOUNDED PRECEDING)
                > min(per_event) FILTER (WHERE pre = 'emit') OVER (PARTITION BY seq)
               THEN 'budget-dropped'
           WHEN truncated THEN 'budget-truncated'
           ELSE 'emitted'
       END AS outcome,
       claim_key,
       pre = 'error' AND fail = 'closed' AS closed_error
FROM decided
ORDER BY seq, priority DESC, pkg_order, rule_order;
