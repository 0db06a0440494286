-- The database file and its blocks (DuckDB's own count): how much of the file is free for new
-- rows (blocks freed by deletes are reused after a checkpoint; the file itself does not
-- shrink). Parameters: none. Result: one row: path (NULL in memory), block_size, free_blocks.
SELECT d.path, s.block_size, s.free_blocks
FROM pragma_database_size() s
JOIN duckdb_databases() d ON d.database_name = s.database_name
WHERE s.database_name = current_database();
