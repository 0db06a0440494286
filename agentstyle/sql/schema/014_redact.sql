-- Migration 014: a redact rule's pattern and replacement (docs/actions.md#redact): what is
-- taken out of a finished call's output before the model reads it, and what stands in its
-- place. NULL: the rule redacts nothing.
ALTER TABLE rules ADD COLUMN IF NOT EXISTS redact_pattern VARCHAR;
ALTER TABLE rules ADD COLUMN IF NOT EXISTS redact_with VARCHAR;
