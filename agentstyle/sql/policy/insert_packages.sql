-- Bulk insert into `packages`: one bound list per column, zipped by unnest.
-- Parameters: $9 lists, in column order (name, version, priority, source, digest, pkg_order,
-- per_rule, per_event, allow_code).
INSERT INTO packages (name, version, priority, source, digest, pkg_order, per_rule, per_event,
                      allow_code)
SELECT
    unnest($1),
    unnest($2),
    unnest($3),
    unnest($4),
    unnest($5),
    unnest($6),
    unnest($7),
    unnest($8),
    unnest($9);
