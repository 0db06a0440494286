-- outcomes.sql for one event in which a block stands: a candidate whose action is `block`
-- rendered, and the event is no stop that the loop guard lets finish (engine/evaluate.py
-- picks this statement then, a hook's refused call). Precedence is then settled: that rule is
-- blocked, every other one suppressed by it or failed, so nothing emits and no claim, refresh
-- or budget is read — the outcomes that outcomes.sql gives such an event.
-- Parameters: lists, a row per rendered candidate, of $1 seq, $2 rule_id, $3 failed
-- (rendering raised), $4 harness, $5 point.
-- Result: seq, rule_id, outcome, claim_key (none: nothing emits), closed_error — in output
-- order.
SELECT r.seq, r.rule_id,
       CASE WHEN r.failed THEN 'error'
            WHEN p.action = 'block' THEN 'blocked'
            ELSE 'block-suppressed' END AS outcome,
       CAST(NULL AS VARCHAR) AS claim_key,
       r.failed AND p.fail = 'closed' AS closed_error
FROM (SELECT unnest($1) AS seq, unnest($2) AS rule_id, unnest($3) AS failed,
             unnest($4) AS harness, unnest($5) AS point) r
JOIN placed p ON p.harness = r.harness AND p.point = r.point AND p.rule_id = r.rule_id
ORDER BY p.priority DESC, p.pkg_order, p.rule_order;
