-- Store the policy's `condition_clauses` rows (policy/rows.py ConditionClauseRow), by column name.
-- Parameters: $1 a struct of one list per column (engine/store.py by_name), each field named
-- as its column: each field becomes a column, its list unnested into a row per element.
INSERT INTO condition_clauses BY NAME SELECT unnest(COLUMNS(s.*)) FROM (SELECT $1 AS s);
