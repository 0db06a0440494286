-- Bulk insert into `entries`: one bound list per column, zipped by unnest.
-- Parameters: $10 lists, in column order (rule_id, harness, point, native_event, matcher, status, reason, effective_action, effective_repeat, capability).
INSERT INTO entries (rule_id, harness, point, native_event, matcher, status, reason, effective_action, effective_repeat, capability)
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
    unnest($10);
