-- The schema version the database is at. Parameters: none. Result: one value (NULL when empty).
SELECT max(version) AS version FROM schema_version;
