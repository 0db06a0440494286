-- The rules of a layer other than the project's (docs/harnesses/index.md#layers): explain and
-- replay name it beside the rule.
-- Result: rule_id, layer.
SELECT rule_id, layer FROM rules WHERE layer <> 'project';
