-- The verdict an earlier STYLE handler gave the same event (docs/design/runtime.md#answered-once).
-- Parameters: $identity, the event's; $window_s, how many seconds back an answer still counts.
-- Result: verdict, reasons; no row when no handler answered it within the window.
SELECT verdict, reasons
FROM answered
WHERE identity = $identity AND ts >= now()::TIMESTAMP - to_seconds(CAST($window_s AS DOUBLE));
