-- Where each rule is narrowed (schema 013 rule_exceptions): `explain`, `replay` and `audit` say
-- which exception took an event out of a rule. No parameters.
-- Result: rule_id, package, reason — in rule and package order.
SELECT rule_id, package, reason
FROM rule_exceptions
ORDER BY rule_id, package, source_file, source_line;
