-- Migration 015: a rule's `check` (docs/observers.md#checks): the read-only command run in the
-- project after the rule's event, or the prompt the client's own model answers at a stop, its
-- timeout and cooldown in seconds. NULL: the rule runs no check.
ALTER TABLE rules ADD COLUMN IF NOT EXISTS check_run VARCHAR;
ALTER TABLE rules ADD COLUMN IF NOT EXISTS check_prompt VARCHAR;
ALTER TABLE rules ADD COLUMN IF NOT EXISTS check_timeout_s DOUBLE;
ALTER TABLE rules ADD COLUMN IF NOT EXISTS check_cooldown_s DOUBLE;
-- Per entry, what install writes for a check beside STYLE's handler (install/handlers.py
-- _observer_groups), so that `style doctor` expects the same: the longest the check's
-- background hook may take, and a `prompt` check's prompt.
ALTER TABLE entries ADD COLUMN IF NOT EXISTS check_s DOUBLE;
ALTER TABLE entries ADD COLUMN IF NOT EXISTS prompt VARCHAR;
