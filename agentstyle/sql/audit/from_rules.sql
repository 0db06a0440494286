-- `--from`: the chosen snapshot of each rule into `rules`.
-- No parameters (reads raw_rules, policy_choice).
INSERT INTO rules BY NAME
SELECT r.* EXCLUDE (machine, exported_at)
FROM raw_rules r
JOIN policy_choice c
  ON c.rule_id = r.rule_id AND c.machine = r.machine AND c.exported_at = r.exported_at;
