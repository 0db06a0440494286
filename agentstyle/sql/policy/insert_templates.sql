-- Bulk insert into `templates`: one bound list per column, zipped by unnest.
-- Parameters: $6 lists, in column order (template_id, pos, kind, text, var, default_value).
INSERT INTO templates (template_id, pos, kind, text, var, default_value)
SELECT
    unnest($1),
    unnest($2),
    unnest($3),
    unnest($4),
    unnest($5),
    unnest($6);
