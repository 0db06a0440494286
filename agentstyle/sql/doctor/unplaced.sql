-- Enabled rules that run nowhere on the installed harnesses (skipped or not placed on each).
-- Parameters: $harnesses, the installed harness names; $builtin, the built-in package (its rules
-- are the same for every client: one a client has no event for is not the person's to fix).
-- Result: rule_id, why (status and reason).
SELECT r.rule_id,
       array_to_string(list_sort(list(DISTINCT en.harness || ' ' || en.status
                                      || coalesce(' (' || en.reason || ')', ''))), '; ') AS why
FROM rules r
JOIN entries en ON en.rule_id = r.rule_id
WHERE r.enabled AND r.package <> $builtin AND list_contains($harnesses, en.harness)
GROUP BY r.rule_id
HAVING NOT bool_or(en.status IN ('native', 'partial', 'degraded', 'static'))
ORDER BY r.rule_id;
