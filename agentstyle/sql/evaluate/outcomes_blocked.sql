-- outcomes.sql for one event in which a block stands: a candidate whose action is `block`
-- rendered, and the event is no stop that the loop guard lets finish (engine/evaluate.py
-- picks this statement then, a hook's refused call). Precedence is then settled: that rule is
-- blocked, every other one suppressed by it or failed, so nothing emits and no claim, refresh
-- or budget is read — the outcomes that outcomes.sql gives such an event. One filtered scan of
-- the event's placed entries, unsorted: under a block the answer does not depend on the rows'
-- order (decision_of puts the refusals in rule order), and a sort costs a third of the plan.
-- Parameters: $1 the rendered candidates' rule ids, $2 whether each failed (rendering raised),
-- as lists; $3 harness, $4 point.
-- Result: seq (0), rule_id, outcome, claim_key (none: nothing emits), closed_error.
SELECT 0 AS seq, p.rule_id,
       CASE WHEN $2[list_position($1, p.rule_id)] THEN 'error'
            WHEN p.action = 'block' THEN 'blocked'
            ELSE 'block-suppressed' END AS outcome,
       CAST(NULL AS VARCHAR) AS claim_key,
       $2[list_position($1, p.rule_id)] AND p.fail = 'closed' AS closed_error
FROM placed p
WHERE p.harness = $3 AND p.point = $4 AND list_contains($1, p.rule_id);
