-- The checks of the installed policy (docs/observers.md#allowing-checks): each rule's command,
-- which `style allow --checks` lets run on this machine. No parameters.
-- Result: rule_id, run — in policy order.
SELECT rule_id, check_run AS run
FROM rules
WHERE check_run IS NOT NULL AND enabled
ORDER BY rule_order;
