-- The verdict an earlier STYLE handler gave the same event (docs/design/runtime.md#answered-once).
-- Parameters: $1 the event's identity, $2 how many seconds back an answer still counts.
-- Result: verdict, reasons; no row when no handler answered it within the window.
SELECT verdict, reasons
FROM answered
WHERE identity = $1 AND ts >= now()::TIMESTAMP - to_seconds(CAST($2 AS DOUBLE));
