-- Prune: forget sessions last seen before the cutoff that have no event left.
-- Parameters: $cutoff (TIMESTAMP). Result: the number of rows deleted.
DELETE FROM sessions s
WHERE s.last_seen < $cutoff
  AND NOT EXISTS (
      SELECT 1 FROM events e WHERE e.harness = s.harness AND e.session_id = s.session_id);
