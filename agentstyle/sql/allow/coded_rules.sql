-- Of the rules that refused an event, those whose package offers allow codes (the package field
-- `allow_code`). Parameters: $rule_ids (VARCHAR[]). Result: rule_id.
SELECT r.rule_id
FROM rules r
JOIN packages p ON p.name = r.package
WHERE list_contains($rule_ids, r.rule_id) AND p.allow_code;
