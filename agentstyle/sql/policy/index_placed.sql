-- Evaluation index (schema 005): the running entries with the facts evaluation reads.
-- No parameters; run after the policy tables are filled, in the same transaction.
INSERT INTO placed
SELECT en.harness, en.point, r.rule_id, r.rule_order, p.pkg_order, r.priority,
       en.effective_action, en.effective_repeat, en.status, r.refresh, r.reinject, r.fail,
       p.per_event, r.uses_rule_state
FROM entries en
JOIN rules r ON r.rule_id = en.rule_id AND r.enabled
JOIN packages p ON p.name = r.package
WHERE en.point IS NOT NULL AND en.status IN ('native', 'partial', 'degraded')
  -- a `prompt` check is the client's own hook: STYLE evaluates nothing there
  AND en.effective_action <> 'prompt';
