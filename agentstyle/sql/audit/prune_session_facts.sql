-- Prune: delete the session facts (state.* over the history) of events older than the cutoff
-- (before prune_events). Parameters: $cutoff (TIMESTAMP). Result: the number of rows deleted.
DELETE FROM session_facts
WHERE event_id IN (SELECT event_id FROM events WHERE ts < $cutoff);
