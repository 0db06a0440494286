-- Migration 012: the harness's transcript file each event's payload named (`transcript_path`).
-- A call a rule asked about shows there whether the person approved it, which the hooks never
-- see when no installed rule runs after tool calls (docs/audit.md#suggest).
ALTER TABLE events ADD COLUMN IF NOT EXISTS transcript VARCHAR;
