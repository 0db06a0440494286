-- Migration 007: whether a stop event came while the harness was already continuing from a
-- stop hook (`stop_hook_active`, Cursor's loop count): the loop guard reads it, so a replay of
-- an export (`style replay DIR`) must find it in the history to guard the same stops.
ALTER TABLE events ADD COLUMN IF NOT EXISTS stop_active BOOLEAN DEFAULT false;
