-- Whether the database has been migrated at all (a new file has no schema_version table).
-- Parameters: none. Result: one count, 0 or 1.
SELECT count(*) FROM information_schema.tables WHERE table_name = 'schema_version';
