-- The installed plan, as `style doctor` compares it with the hook configs (policy/rows.py
-- EntryRow; a rule's `fail: closed` is read apart, doctor/closed_rules.sql), with what a check's
-- entry gives its handler (policy/plan.py check_entries): the background hook's time, the
-- timeout and cooldown of a `check` entry; a `prompt` entry's prompt and timeout.
-- No parameters.
-- Result: rule_id, harness, point, native_event, matcher, status, reason, effective_action,
-- effective_repeat, capability, check_s, prompt.
SELECT e.rule_id, e.harness, e.point, e.native_event, e.matcher, e.status, e.reason,
       e.effective_action, e.effective_repeat, e.capability,
       CASE e.effective_action
           WHEN 'check' THEN r.check_timeout_s + r.check_cooldown_s
           WHEN 'prompt' THEN r.check_timeout_s
       END AS check_s,
       CASE WHEN e.effective_action = 'prompt' THEN r.check_prompt END AS prompt
FROM entries e
LEFT JOIN rules r ON r.rule_id = e.rule_id
ORDER BY e.harness, e.rule_id, e.point;
