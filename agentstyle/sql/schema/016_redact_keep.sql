-- Migration 016: a redact rule's `keep` (docs/actions.md#keep): patterns tested against each
-- match of its `pattern`; a match one of them is found in is left in the output (a pagination
-- cursor under a token's name, a placeholder key). One RE2 alternation; NULL: every match goes.
ALTER TABLE rules ADD COLUMN IF NOT EXISTS redact_keep VARCHAR;
