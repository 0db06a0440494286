-- Bulk insert into `conditions`: one bound list per column, zipped by unnest.
-- Parameters: $19 lists, in column order (rule_id, node_id, parent_id, kind, field, lookup_field, field_regex, op, base_op, pattern, regex, num, list_values, line, col, literal, literal_ci, literals, any_literal).
INSERT INTO conditions (rule_id, node_id, parent_id, kind, field, lookup_field, field_regex, op, base_op, pattern, regex, num, list_values, line, col, literal, literal_ci, literals, any_literal)
SELECT
    unnest($1),
    unnest($2),
    unnest($3),
    unnest($4),
    unnest($5),
    unnest($6),
    unnest($7),
    unnest($8),
    unnest($9),
    unnest($10),
    unnest($11),
    unnest($12),
    unnest($13),
    unnest($14),
    unnest($15),
    unnest($16),
    unnest($17),
    unnest($18),
    unnest($19);
