-- The installed plan, as `style doctor` compares it with the hook configs (policy/rows.py
-- EntryRow; a rule's `fail: closed` is read apart, doctor/closed_rules.sql), with what a check's
-- entry gives its handler (policy/plan.py check_entries, schema 015): the background hook's
-- time, a `prompt` entry's prompt. No parameters.
-- Result: rule_id, harness, point, native_event, matcher, status, reason, effective_action,
-- effective_repeat, capability, check_s, prompt.
SELECT rule_id, harness, point, native_event, matcher, status, reason, effective_action,
       effective_repeat, capability, check_s, prompt
FROM entries
ORDER BY harness, rule_id, point;
