-- OpenCode's sessions database (SQLite, not STYLE's DuckDB; read-only): the parts that may be
-- tool calls, of every session, oldest first, with the folder each session ran in. The JSON of
-- each part is read in Python (harnesses/transcripts/opencode.py); the LIKE only skips the
-- text parts. Result: session_id, directory, time_created (ms), data.
SELECT part.session_id, session.directory, part.time_created, part.data
FROM part JOIN session ON session.id = part.session_id
WHERE part.data LIKE '%"tool"%'
ORDER BY part.time_created, part.id;
