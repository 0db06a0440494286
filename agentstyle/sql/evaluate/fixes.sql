-- The rules with a fix (docs/design/runtime.md#fixes): what a refused shell command may be
-- rewritten with. Result: rule_id, fix_pattern, fix_template.
SELECT rule_id, fix_pattern, fix_template
FROM rules
WHERE fix_pattern IS NOT NULL;
