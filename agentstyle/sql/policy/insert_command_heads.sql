-- Store the policy's `command_heads` rows (policy/rows.py CommandHeadRow), by column name.
-- Parameters: $rows, a struct of one list per column (evaluator/store.py by_name).
INSERT INTO command_heads BY NAME SELECT unnest(COLUMNS(s.*)) FROM (SELECT $rows AS s);
