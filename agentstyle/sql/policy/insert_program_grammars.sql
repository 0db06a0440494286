-- Store the policy's `program_grammars` rows (policy/rows.py ProgramGrammarRow), by column name.
-- Parameters: $rows, a struct of one list per column (evaluator/store.py by_name).
INSERT INTO program_grammars BY NAME SELECT unnest(COLUMNS(s.*)) FROM (SELECT $rows AS s);
