-- `--from GLOB`: the files a glob names (local paths, or any file system DuckDB can read).
-- Parameters: $pattern. Result: file, sorted.
SELECT file FROM glob($pattern) ORDER BY file;
