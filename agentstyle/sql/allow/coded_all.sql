-- Every rule whose package offers allow codes (the package field `allow_code`), read once by a
-- connection that evaluates many events of one policy (the resident engine; coded_rules.sql
-- asks for a batch's refusing rules instead). No parameters. Result: rule_id.
SELECT r.rule_id
FROM rules r
JOIN packages p ON p.name = r.package
WHERE p.allow_code;
