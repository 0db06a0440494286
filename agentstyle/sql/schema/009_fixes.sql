-- Migration 009: a rule's fix (docs/design/runtime.md#fixes): the RE2 pattern and replacement
-- a `block` rule on shell calls applies to the simple commands it refused, so the harness
-- can run (or the refusal can name) a command that passes the whole policy. NULL: no fix.
ALTER TABLE rules ADD COLUMN IF NOT EXISTS fix_pattern VARCHAR;
ALTER TABLE rules ADD COLUMN IF NOT EXISTS fix_template VARCHAR;
