-- Prune: delete the events older than the cutoff (their fields, hits and claims go first).
-- Parameters: $cutoff (TIMESTAMP). Result: the number of rows deleted.
DELETE FROM events WHERE ts < $cutoff;
