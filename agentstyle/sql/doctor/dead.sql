-- Rules that never fired while their points saw at least $min_events events
-- (docs/audit.md#flags `dead`). Parameters: $min_events, the event threshold. Result: rule_id, events seen at its points.
WITH seen AS (
    SELECT harness, point, count(*) AS n FROM events GROUP BY harness, point
),
fired AS (
    SELECT DISTINCT rule_id FROM hits
    WHERE outcome IN ('emitted', 'blocked', 'asked', 'allowed', 'budget-truncated',
                      'user-allowed', 'fixed')
)
SELECT en.rule_id, sum(s.n) AS events
FROM entries en
JOIN rules r ON r.rule_id = en.rule_id AND r.enabled
JOIN seen s ON s.harness = en.harness AND s.point = en.point
WHERE en.status IN ('native', 'partial', 'degraded')
  AND en.rule_id NOT IN (SELECT rule_id FROM fired)
GROUP BY en.rule_id
HAVING sum(s.n) >= $min_events
ORDER BY en.rule_id;
