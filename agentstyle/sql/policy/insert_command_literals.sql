-- Store the policy's `command_literals` rows (policy/rows.py CommandLiteralRow), by column name.
-- Parameters: $rows, a struct of one list per column (evaluator/store.py by_name).
INSERT INTO command_literals BY NAME SELECT unnest(COLUMNS(s.*)) FROM (SELECT $rows AS s);
