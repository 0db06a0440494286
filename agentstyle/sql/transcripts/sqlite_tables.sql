-- A SQLite database's tables (not STYLE's DuckDB), to tell whose database it is
-- (harnesses/transcripts/opencode.py). Result: name.
SELECT name FROM sqlite_master WHERE type = 'table';
