-- Keep the verdict of the event this handler evaluated first, in its transaction
-- (docs/design/runtime.md#answered-once).
-- Parameters: $identity, $event_id, $verdict (NULL: no opinion), $reasons.
INSERT INTO answered (identity, event_id, verdict, reasons, ts)
VALUES ($identity, $event_id, $verdict, CAST($reasons AS VARCHAR[]), now()::TIMESTAMP);
