-- Store the policy's `rule_exceptions` rows (policy/rows.py RuleExceptionRow), by column name.
-- Parameters: $rows, a struct of one list per column (evaluator/store.py by_name).
INSERT INTO rule_exceptions BY NAME SELECT unnest(COLUMNS(s.*)) FROM (SELECT $rows AS s);
