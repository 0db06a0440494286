-- Bulk insert into `condition_clauses`: one bound list per column, zipped by unnest.
-- Parameters: $5 lists, in column order (rule_id, clause_id, node_id, negated, clause_size).
INSERT INTO condition_clauses (rule_id, clause_id, node_id, negated, clause_size)
SELECT
    unnest($1),
    unnest($2),
    unnest($3),
    unnest($4),
    unnest($5);
