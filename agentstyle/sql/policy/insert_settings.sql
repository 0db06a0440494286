-- Bulk insert into `settings`: one bound list per column, zipped by unnest.
-- Parameters: $3 lists, in column order (package, name, value).
INSERT INTO settings (package, name, value)
SELECT
    unnest($1),
    unnest($2),
    unnest($3);
