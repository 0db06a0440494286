-- The redact rules among these (docs/actions.md#redact): what each takes out of a finished
-- call's output and what it puts in its place. Parameters: $rule_ids.
-- Result: rule_id, redact_pattern, redact_with, redact_keep (NULL: no `keep`).
SELECT rule_id, redact_pattern, redact_with, redact_keep
FROM rules
WHERE redact_pattern IS NOT NULL AND list_contains($rule_ids, rule_id);
