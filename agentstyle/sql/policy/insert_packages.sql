-- Store the policy's `packages` rows (policy/rows.py PackageRow), by column name.
-- Parameters: $rows, a struct of one list per column (evaluator/store.py by_name), each field named
-- as its column: each field becomes a column, its list unnested into a row per element.
INSERT INTO packages BY NAME SELECT unnest(COLUMNS(s.*)) FROM (SELECT $rows AS s);
