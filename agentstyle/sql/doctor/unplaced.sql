-- Enabled rules that run nowhere on the installed harnesses (skipped or not placed on each).
-- Parameters: $harnesses, the installed harness names. Result: rule_id, why (status and reason).
SELECT r.rule_id,
       array_to_string(list_sort(list(DISTINCT en.harness || ' ' || en.status
                                      || coalesce(' (' || en.reason || ')', ''))), '; ') AS why
FROM rules r
JOIN entries en ON en.rule_id = r.rule_id
WHERE r.enabled AND list_contains($harnesses, en.harness)
GROUP BY r.rule_id
HAVING NOT bool_or(en.status IN ('native', 'partial', 'degraded', 'static'))
ORDER BY r.rule_id;
