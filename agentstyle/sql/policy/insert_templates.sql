-- Store the policy's `templates` rows (policy/rows.py TemplateRow), by column name.
-- Parameters: $rows, a struct of one list per column (evaluator/store.py by_name), each field named
-- as its column: each field becomes a column, its list unnested into a row per element.
INSERT INTO templates BY NAME SELECT unnest(COLUMNS(s.*)) FROM (SELECT $rows AS s);
