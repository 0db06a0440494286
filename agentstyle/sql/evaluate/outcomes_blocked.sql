-- outcomes.sql for one event in which a block stands: a candidate whose action is `block`
-- rendered, and the event is no stop that the loop guard lets finish (evaluator/evaluate.py
-- picks this statement then, a hook's refused call). Precedence is then settled:
-- that rule is blocked, every other one suppressed by it or failed, so nothing emits and no
-- claim, refresh or budget is read — the outcomes that outcomes.sql gives such an event. The
-- candidates come as match.sql and candidates.sql gave them (the engine holds the entries),
-- so no table is read: a plan of one unnest, unsorted (under a block the answer does not
-- depend on the rows' order; decision_of puts the refusals in rule order).
-- Parameters, one list entry per matched candidate: $rule_id, $failed (whether rendering
-- failed), $action (the entry's), $closed (whether the entry fails closed).
-- Result: seq (0), rule_id, outcome, claim_key (none: nothing emits), closed_error.
SELECT 0 AS seq, rule_id,
       CASE WHEN failed THEN 'error'
            WHEN action = 'block' THEN 'blocked'
            ELSE 'block-suppressed' END AS outcome,
       CAST(NULL AS VARCHAR) AS claim_key,
       failed AND closed AS closed_error
FROM (SELECT unnest($rule_id) AS rule_id, unnest($failed) AS failed,
             unnest($action) AS action, unnest($closed) AS closed);
