-- Migration 006: what a session did, for the state.* fields over its history
-- (docs/conditions.md#what-the-session-did-commands-and-edits): one row per shell command a
-- tool.post/tool.failed event ran (a simple command as `shell.commands` holds it) and per file a
-- successful write or edit touched (`file.path`). Written by evaluator/evaluate.py record() only where
-- the policy has a rule reading those fields (point_flags.history), in every log mode: they are the
-- rule's input, not the audit's.
CREATE TABLE session_facts (
    harness VARCHAR NOT NULL,
    session_id VARCHAR NOT NULL,
    event_id BIGINT NOT NULL,
    kind VARCHAR NOT NULL,           -- command | edit
    value VARCHAR NOT NULL,          -- the simple command, or the file path (stored redacted)
    failed BOOLEAN NOT NULL          -- the command's call failed (tool.failed)
);
CREATE INDEX session_facts_session ON session_facts (harness, session_id);

-- Per harness and point: a condition reads state.commands_since_edit, state.files_edited or
-- state.commands_failed (sql/evaluate/history_state.sql runs for its events).
ALTER TABLE point_flags ADD COLUMN history BOOLEAN DEFAULT false;
