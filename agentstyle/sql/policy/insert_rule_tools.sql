-- Bulk insert into `rule_tools`: one bound list per column, zipped by unnest.
-- Parameters: $4 lists, in column order (rule_id, kind, pattern, regex).
INSERT INTO rule_tools (rule_id, kind, pattern, regex)
SELECT
    unnest($1),
    unnest($2),
    unnest($3),
    unnest($4);
