-- Keep the verdict of the event this handler evaluated first, in its transaction
-- (docs/design/runtime.md#answered-once).
-- Parameters: $1 identity, $2 event id, $3 verdict (NULL: no opinion), $4 reasons.
INSERT INTO answered (identity, event_id, verdict, reasons, ts)
VALUES ($1, $2, $3, CAST($4 AS VARCHAR[]), now()::TIMESTAMP);
