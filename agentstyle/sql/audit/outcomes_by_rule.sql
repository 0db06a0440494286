-- How often each rule ended in each outcome, over the whole history.
-- No parameters. Result: rule_id, outcome, n.
SELECT rule_id, outcome, count(*) AS n
FROM hits
GROUP BY rule_id, outcome
ORDER BY rule_id, outcome;
