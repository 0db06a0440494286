-- `--from`: the `rule_tools` rows of each rule's chosen snapshot.
-- Parameters: $files (list of Parquet files; reads policy_choice).
INSERT INTO rule_tools BY NAME
SELECT DISTINCT x.* EXCLUDE (machine, exported_at)
FROM read_parquet($files, hive_partitioning = false, union_by_name = true) x
JOIN policy_choice c
  ON c.rule_id = x.rule_id AND c.machine = x.machine AND c.exported_at = x.exported_at;
